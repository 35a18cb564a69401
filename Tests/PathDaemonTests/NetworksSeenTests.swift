// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import Dispatch
import Foundation
import PathConfiguration
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import ServiceSupport
import Testing
@testable import PathDaemon

/// Where the networks a link was on go: the `networks` request and its file, the
/// history's entries, the metrics' labels. eth0 on one gateway address, 198.51.100.1,
/// behind two routers told apart by their MAC: `home`, then `hotspot`.
@Suite("networks seen, in the history and the metrics", .blocking)
struct NetworksSeenTests {
    static let homeMAC = TwoNetworks.home
    static let hotspotMAC = TwoNetworks.hotspot
    static let key = NetworkKey(base: Array(1...16))!

    static func configuration(_ text: String = TwoNetworks.configuration) -> Configuration {
        var configuration = Configuration.parse([ConfigurationSource(name: "pathd.conf", text: text)]).configuration
        configuration.policy.networkKey = key
        return configuration
    }

    static func instant(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(sinceBoot: .seconds(seconds)) }

    static func router(_ mac: String, confirmedAt seconds: Int?) -> NetworkEvent {
        .neighbourChanged(Neighbour(interface: Fixture.ethIndex, address: Fixture.ip("198.51.100.1"),
                                    linkLayerAddress: LinkLayerAddress(mac), state: .reachable,
                                    confirmedAt: seconds.map(instant)))
    }

    /// The online host with eth0's own route through the gateway, and the home router confirmed.
    static let atHome = Fixture.online + [
        Fixture.defaultRoute(.ipv4, via: Fixture.ethIndex, gateway: "198.51.100.1"), router(homeMAC, confirmedAt: nil),
    ]

    /// A carrier flap, and the hotspot's MAC confirmed after it.
    static let toHotspot: [NetworkEvent] = [
        .linkChanged(Fixture.eth0NoCarrier), .carrierLost(Fixture.ethIndex, at: instant(100)),
        .linkChanged(Fixture.eth0()), .carrierRegained(Fixture.ethIndex, at: instant(101)),
        router(hotspotMAC, confirmedAt: 102),
    ]

    /// The daemon's default path, as evaluated (with each interface's network).
    static func currentPath(_ harness: DaemonHarness) -> Path? {
        harness.queue.sync { harness.service.currentPath() }
    }

    static func networks(_ client: PathConnection) throws -> (HistoryPersistence, [SeenNetwork]) {
        try client.send(Request(.networks))
        guard case .networks(let capacity, let persistence, let networks, _) = try client.next() else {
            throw PathClientError("no networks line")
        }
        #expect(capacity == NetworkRegistry.capacity)
        return (persistence, networks)
    }

    @Test("""
        home then hotspot: the networks request lists both, the current first, with their facts; they survive a \
        restart
        """)
    func listedAndPersisted() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            let clock = ManualClock()
            do {
                let harness = try DaemonHarness(state: Self.atHome, configuration: Self.configuration(), clock: clock,
                                                stateDirectory: directory)
                defer { harness.stop() }
                let (subscriber, _) = try harness.connectAndSubscribe()
                #expect(Self.currentPath(harness)?.network?.name == "home")
                let (persistence, atHome) = try Self.networks(subscriber)
                #expect(persistence == .persistent)
                #expect(atHome.map(\.label) == ["home"] && atHome.first?.isCurrent == true)
                #expect(atHome.first?.facts.gatewayMACs.map(\.description) == [Self.homeMAC])
                #expect(atHome.first?.interfaces == ["eth0"])

                clock.advance(by: .seconds(60))
                harness.network.latest.emit(Self.toHotspot)
                _ = try subscriber.waitForPath { $0.isExpensive }
                #expect(Self.currentPath(harness)?.network?.name == "hotspot")
                let (_, both) = try Self.networks(subscriber)
                #expect(both.map(\.label) == ["hotspot", "home"], "the current one first")
                #expect(both.map(\.isCurrent) == [true, false])
                #expect(both.last?.lastSeen == atHome.first.map { $0.firstSeen + .seconds(60) },
                        "home was left when the carrier went")
            }
            let file = directory + "/" + NetworkRegistry.fileName
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "the file holds the facts: \(String(mode ?? 0, radix: 8))")
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains(Self.hotspotMAC))

            let harness = try DaemonHarness(state: Self.atHome, configuration: Self.configuration(), clock: clock,
                                            stateDirectory: directory)
            defer { harness.stop() }
            let client = try harness.connect()
            let (_, again) = try Self.networks(client)
            #expect(again.map(\.label) == ["home", "hotspot"])
            #expect(again.map(\.isCurrent) == [true, false], "what was current at the stop is not, until seen")
        }
    }

    @Test("""
        a change of the path that keeps its networks leaves the list as it was, but for the domains a router gave \
        since, which it records
        """)
    func keptNetworksRecordDomainsOnly() throws {
        let clock = ManualClock()
        let harness = try DaemonHarness(state: Self.atHome, configuration: Self.configuration(), clock: clock)
        defer { harness.stop() }
        let (subscriber, _) = try harness.connectAndSubscribe()
        let (_, before) = try Self.networks(subscriber)
        #expect(before.map(\.label) == ["home"] && before.first?.domains == [])

        // IPv6 comes (a path change on the same network), then goes (another), a minute apart.
        clock.advance(by: .seconds(60))
        harness.network.latest.emit([Fixture.added("2001:db8::10"),
                                     Fixture.route(.ipv6, via: Fixture.ethIndex, gateway: "fe80::1",
                                                   source: "2001:db8::10")])
        _ = try subscriber.waitForPath { $0.supportsIPv6 }
        // A current network's lastSeen is the moment of the listing (`NetworkRegistry.list`).
        func recorded(_ networks: [SeenNetwork]) -> [SeenNetwork] {
            networks.map { network in
                var network = network
                network.lastSeen = .zero
                return network
            }
        }
        let (_, kept) = try Self.networks(subscriber)
        #expect(recorded(kept) == recorded(before))

        // A router's search list changes no path; the next change of the path records it.
        harness.network.latest.emit([.routerOption(RouterOption(
            interface: Fixture.ethIndex, router: Fixture.ip("fe80::1"), receivedAt: Self.instant(200),
            content: .dnsSearchList(["corp.example"], lifetime: nil)))])
        clock.advance(by: .seconds(60))
        harness.network.latest.emit([.routeLookup(.ipv6, .noRoute)])
        _ = try subscriber.waitForPath { !$0.supportsIPv6 }
        let (_, after) = try Self.networks(subscriber)
        #expect(after.map(\.label) == ["home"])
        #expect(after.first?.domains == ["corp.example"])
        #expect(after.first?.firstSeen == before.first?.firstSeen && after.first?.facts == before.first?.facts)
    }

    @Test("the history names the network of each change, and an outage the network it happened on")
    func historyNamesNetworks() throws {
        let harness = try DaemonHarness(state: Self.atHome, configuration: Self.configuration())
        defer { harness.stop() }
        let (subscriber, _) = try harness.connectAndSubscribe()
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier), .carrierLost(Fixture.ethIndex,
                                                                                       at: Self.instant(100))])
        #expect(try subscriber.nextPath().update.path.status == .unsatisfied)
        harness.network.latest.emit(Array(Self.toHotspot.dropFirst(2)))
        _ = try subscriber.waitForPath { $0.isExpensive }
        let (_, _, entries) = try HistoryTests.history(subscriber)
        let networks = entries.compactMap { entry -> String? in
            guard case .change(let change) = entry.event else { return nil }
            return change.network.map { "\(change.status.rawValue) \($0.label) \($0.id)" } ?? change.status.rawValue
        }
        let home = try #require(Self.configuration().policy.networkKey?.id(of: NetworkFacts(
            anchor: .gatewayMAC, gatewayMACs: [LinkLayerAddress(Self.homeMAC)!])))
        #expect(networks.first == "satisfied home \(home)")
        #expect(networks.dropFirst().first == "unsatisfied", "an unsatisfied path is on no network")
        #expect(networks.last?.hasPrefix("satisfied hotspot ") == true, "\(networks)")
        let summary = HistorySummary.summarize(entries, now: harness.service.records.clock.now())
        #expect(summary.outages.map(\.network) == ["home"])
        // Never the facts.
        try subscriber.send(Request(.history(since: nil, limit: nil)))
        let (_, line) = try subscriber.nextWithLine()
        #expect(!String(decoding: line, as: UTF8.self).contains(Self.homeMAC))
    }

    @Test("the metrics label an interface's series with the configured name only, never an ID or a MAC")
    func metricsLabels() throws {
        let named = try DaemonHarness(state: Self.atHome, configuration: Self.configuration())
        defer { named.stop() }
        let client = try named.connect()
        let text = try MetricsTests.metrics(client)
        #expect(text.contains(#"in_path="true",network="home"}"#), "\(text)")
        let id = try #require(Self.currentPath(named)?.network?.id)
        #expect(!text.contains(id.description) && !text.contains(Self.homeMAC))

        let unnamed = try DaemonHarness(state: Self.atHome, configuration: Self.configuration(""))
        defer { unnamed.stop() }
        let other = try MetricsTests.metrics(try unnamed.connect())
        #expect(other.contains(#"in_path="true",network=""}"#), "\(other)")
    }

    @Test("at most 256 networks are kept, the least recently seen forgotten first; an unreadable line is skipped")
    func bounded() throws {
        try withTemporaryDirectory { temporary in
            let queue = DispatchQueue(label: "pathd.test.networks")
            let log = Logger(threshold: .error, journalPrefixes: false)
            let facts = { (index: Int) in
                NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [LinkLayerAddress(bytes: [2, 0, 0, 0, UInt8(index >> 8),
                                                                                          UInt8(index & 0xff)])!])
            }
            let sighting = { (index: Int) in
                SeenNetwork(id: Self.key.id(of: facts(index)), facts: facts(index), interfaces: ["eth0"],
                            firstSeen: .zero, lastSeen: .zero)
            }
            let kept = queue.sync {
                let registry = NetworkRegistry(directory: temporary.url.path, queue: queue,
                                               scheduler: ManualScheduler(), log: log)
                for index in 0..<300 { registry.update(current: [sighting(index)], at: .seconds(Int64(index))) }
                registry.update(current: [], at: .seconds(300))
                registry.close(at: .seconds(301))
                return registry.networks
            }
            #expect(kept.count == NetworkRegistry.capacity)
            #expect(kept[sighting(43).id] == nil && kept[sighting(44).id] != nil)

            let file = temporary.path(NetworkRegistry.fileName)
            var text = try String(contentsOfFile: file, encoding: .utf8)
            text += "{\"id\":\"not an id\"}\n"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let reread = queue.sync {
                NetworkRegistry(directory: temporary.url.path, queue: queue, scheduler: ManualScheduler(), log: log)
                    .networks
            }
            #expect(reread.count == NetworkRegistry.capacity)
            #expect(try !String(contentsOfFile: file, encoding: .utf8).contains("not an id"), "rewritten without it")
        }
    }

    @Test("""
        a networks.jsonl written before facts' "kind" (the link kind as "linkKind" only) is read whole, and \
        written again with both
        """)
    func readsTheFileBeforeKind() throws {
        let old = try Fixture.compatibilityLines("networks-file-linkKind.jsonl")
        #expect(old.allSatisfy { !$0.contains(#""kind""#) })
        let (networks, skipped) = NetworkRegistry.parse(Array(old.joined(separator: "\n").utf8))
        #expect(skipped.isEmpty, "\(skipped)")
        #expect(networks.map(\.facts.linkKind) == [nil, nil, "wireguard"])
        #expect(networks.map(\.facts.anchor) == [.gatewayMAC, .virtualRouter, .prefix])
        #expect(networks.last?.facts.prefix == IPPrefix("10.8.0.0/24"))
        let rewritten = networks.map { String(decoding: $0.encodedLine().dropLast(), as: UTF8.self) }
        #expect(rewritten.last?.hasSuffix(#""kind":"wireguard","linkKind":"wireguard"}}"#) == true,
                "\(rewritten.last ?? "")")
        #expect(try rewritten.map { try SeenNetwork.decode(line: Array($0.utf8)) } == networks)
    }
}
