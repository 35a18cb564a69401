// SPDX-License-Identifier: Apache-2.0
import PathConfiguration
import PathEvaluation
import PathModel
import PathTestFixtures
import Testing

@Suite("network identity: which network a link is on")
struct NetworkIdentifierTests {
    private typealias F = Fixture
    static let key = NetworkKey(base: Array(1...16))!
    static let otherKey = NetworkKey(base: Array(101...116))!
    static let gateway = F.ip("192.168.1.1")
    static let homeMAC = TwoNetworks.home
    static let hotspotMAC = TwoNetworks.hotspot

    static func instant(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(sinceBoot: .seconds(seconds)) }

    /// wlan0 on 192.168.1.20/24 with its default route via 192.168.1.1: the home and the
    /// hotspot alike.
    static func host(link: Link = F.wlan0()) -> Snapshot {
        Snapshot(events: [
            .linkChanged(F.lo), .linkChanged(link), F.added("192.168.1.20", on: link.index),
            F.defaultRoute(.ipv4, via: link.index, gateway: "192.168.1.1"),
            F.route(.ipv4, via: link.index, gateway: "192.168.1.1", source: "192.168.1.20"),
            .routeLookup(.ipv6, .noRoute),
        ])
    }

    static func neighbour(_ mac: String, confirmedAt seconds: Int?, address: IPAddress = gateway,
                          on index: InterfaceIndex = F.wlanIndex) -> NetworkEvent {
        .neighbourChanged(Neighbour(interface: index, address: address, linkLayerAddress: LinkLayerAddress(mac),
                                    state: .reachable, confirmedAt: seconds.map(instant)))
    }

    static func policy(_ text: String = "", key: NetworkKey? = key) -> Policy {
        var policy = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)]).configuration.policy
        policy.networkKey = key
        return policy
    }

    static let homeAndHotspot = policy(TwoNetworks.configuration)

    @Test("home then hotspot on one interface and one gateway address: told apart by the router's MAC")
    func homeThenHotspot() throws {
        var snapshot = Self.host()
        snapshot.apply(Self.neighbour(Self.homeMAC, confirmedAt: 5))
        let home = PathEvaluator.evaluate(snapshot, policy: Self.homeAndHotspot)
        #expect(home.network?.name == "home" && home.network?.state == .identified)
        #expect(home.network?.anchor == .gatewayMAC)
        #expect(!home.isExpensive && home.isExpensiveSetBy == .type)

        snapshot.apply(.carrierLost(F.wlanIndex, at: Self.instant(10)))
        snapshot.apply(.carrierRegained(F.wlanIndex, at: Self.instant(12)))
        snapshot.apply(Self.neighbour(Self.hotspotMAC, confirmedAt: 13))
        let hotspot = PathEvaluator.evaluate(snapshot, policy: Self.homeAndHotspot)
        #expect(hotspot.network?.name == "hotspot")
        #expect(hotspot.isExpensive && hotspot.isExpensiveSetBy == .network)
        #expect(hotspot.network?.id != home.network?.id)
        #expect(hotspot != home, "a new network on the same interface is a path change")
        #expect(hotspot.availableInterfaces.map(\.name) == home.availableInterfaces.map(\.name))
    }

    @Test("an entry kept across the carrier loss names nothing: pending while settling, then unidentified")
    func freshness() {
        var snapshot = Self.host()
        snapshot.apply(Self.neighbour(Self.homeMAC, confirmedAt: 5))
        snapshot.apply(.carrierLost(F.wlanIndex, at: Self.instant(10)))
        snapshot.apply(.carrierRegained(F.wlanIndex, at: Self.instant(12)))
        let pending = PathEvaluator.evaluate(snapshot, policy: Self.homeAndHotspot)
        #expect(pending.network == LinkNetwork(state: .pending, anchor: .gatewayMAC))
        #expect(pending.status == .satisfied)
        snapshot.endSettling(of: F.wlanIndex, cameBackAt: Self.instant(12))
        let unidentified = PathEvaluator.evaluate(snapshot, policy: Self.homeAndHotspot)
        #expect(unidentified.network == LinkNetwork(state: .unidentified, anchor: .gatewayMAC))
        // Confirmed again, later: the same home, identified again.
        snapshot.apply(Self.neighbour(Self.homeMAC, confirmedAt: 30))
        #expect(PathEvaluator.evaluate(snapshot, policy: Self.homeAndHotspot).network?.name == "home")
    }

    @Test("no section matches a network that is not identified, not even one matching the gateway's address")
    func noGuess() {
        var snapshot = Self.host()
        snapshot.apply(.carrierLost(F.wlanIndex, at: Self.instant(10)))
        snapshot.apply(.carrierRegained(F.wlanIndex, at: Self.instant(12)))
        let policy = Self.policy("[Network]\nGatewayAddress=192.168.1.1\nName=home\nExpensive=no\n")
        let path = PathEvaluator.evaluate(snapshot, policy: policy)
        #expect(path.network?.state == .pending && path.network?.name == nil)
        #expect(path.isExpensiveSetBy == .type)
    }

    @Test("two VRRP sites on 00:00:5e:00:01:01 with different prefixes have two IDs")
    func virtualRouters() throws {
        func site(_ prefix: String) -> Snapshot {
            var snapshot = Snapshot(events: [
                .linkChanged(F.eth0()), F.added("\(prefix).20"),
                F.defaultRoute(.ipv4, via: F.ethIndex, gateway: "\(prefix).1"),
                F.route(.ipv4, via: F.ethIndex, gateway: "\(prefix).1", source: "\(prefix).20"),
            ])
            snapshot.apply(Self.neighbour("00:00:5e:00:01:01", confirmedAt: 1, address: F.ip("\(prefix).1"),
                                          on: F.ethIndex))
            return snapshot
        }
        let first = PathEvaluator.evaluate(site("10.1.0"), policy: Self.policy()).network
        let second = PathEvaluator.evaluate(site("10.2.0"), policy: Self.policy()).network
        #expect(first?.anchor == .virtualRouter && second?.anchor == .virtualRouter)
        #expect(first?.id != nil && first?.id != second?.id)
        #expect(PathEvaluator.evaluate(site("10.1.0"), policy: Self.policy()).network == first)
    }

    @Test("another key gives other IDs; no key identifies nothing")
    func keys() {
        var snapshot = Self.host()
        snapshot.apply(Self.neighbour(Self.homeMAC, confirmedAt: 5))
        let mine = PathEvaluator.evaluate(snapshot, policy: Self.policy()).network?.id
        let theirs = PathEvaluator.evaluate(snapshot, policy: Self.policy(key: Self.otherKey)).network?.id
        #expect(mine != nil && theirs != nil && mine != theirs)
        #expect(PathEvaluator.evaluate(snapshot, policy: Self.policy(key: nil)).network == nil)
    }

    @Test("a link without layer 2 is its kind and gateway, or its kind and prefix, at once")
    func withoutLayer2() throws {
        var snapshot = Snapshot(events: [
            .linkChanged(F.wg0()), F.added("10.8.0.2", on: F.wgIndex),
            F.defaultRoute(.ipv4, via: F.wgIndex), F.route(.ipv4, via: F.wgIndex, source: "10.8.0.2"),
        ])
        let byPrefix = try #require(PathEvaluator.evaluate(snapshot, policy: Self.policy()).network)
        #expect(byPrefix.state == .identified && byPrefix.anchor == .prefix)
        snapshot.apply(F.defaultRoute(.ipv4, via: F.wgIndex, gateway: "10.8.0.1"))
        let byGateway = try #require(PathEvaluator.evaluate(snapshot, policy: Self.policy()).network)
        #expect(byGateway.anchor == .gateway && byGateway.id != byPrefix.id)
    }

    @Test("an iPhone's USB tethering (ipheth) is expensive by a hint; [Interface] overrides it")
    func iphethHint() {
        var usb = Link(index: F.ethIndex, name: "eth1", flags: F.working, operState: .up, hardwareType: .ether,
                       type: .wiredEthernet, driver: "ipheth")
        let snapshot = Self.host(link: usb)
        let path = PathEvaluator.evaluate(snapshot, policy: Self.policy())
        #expect(path.isExpensive && path.isExpensiveSetBy == .hint)
        let free = PathEvaluator.evaluate(snapshot, policy: Self.policy("[Interface]\nName=eth1\nExpensive=no\n"))
        #expect(!free.isExpensive && free.isExpensiveSetBy == .interface)
        usb.driver = "cdc_ether"
        #expect(!PathEvaluator.evaluate(Self.host(link: usb), policy: Self.policy()).isExpensive)
    }

    @Test("the interfaces report names each link's network and facts, and no network without carrier")
    func reports() throws {
        var snapshot = Self.host()
        snapshot.apply(Self.neighbour(Self.homeMAC, confirmedAt: 5))
        let report = try #require(InterfaceReport.reports(for: snapshot, policy: Self.homeAndHotspot)
            .first { $0.name == "wlan0" })
        #expect(report.network?.name == "home")
        #expect(report.networkFacts == NetworkFacts(anchor: .gatewayMAC,
                                                    gatewayMACs: [LinkLayerAddress(Self.homeMAC)!]))
        snapshot.apply(.linkChanged(F.wlan0(flags: [.up], operState: .lowerLayerDown)))
        let down = try #require(InterfaceReport.reports(for: snapshot, policy: Self.homeAndHotspot)
            .first { $0.name == "wlan0" })
        #expect(down.network == nil && down.networkFacts == nil)
    }
}
