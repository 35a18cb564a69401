// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Dispatch
import Foundation
import PathClient
import PathModel
import PathProtocol
import PathSocketClient
import Testing

/// The Apple-named layer is a mapping of pathd's values: tested here value by value,
/// and the monitor's Apple behaviour (first path, changes, iteration, cancel) against
/// a daemon.
@Suite("NWPath mapping", .blocking)
struct NWPathMappingTests {
    static let wlan0 = Interface(name: "wlan0", index: InterfaceIndex(rawValue: 3), type: .wifi)
    static let eth0 = Interface(name: "eth0", index: InterfaceIndex(rawValue: 2), type: .wiredEthernet)
    static let wg0 = Interface(name: "wg0", index: InterfaceIndex(rawValue: 7), type: .other, isTunnel: true)

    @Test("status, flags, interfaces and gateways map one to one")
    func fields() {
        let path = Path(status: .satisfied, availableInterfaces: [Self.eth0, Self.wlan0], isExpensive: true,
                        isConstrained: true, supportsIPv4: true, supportsIPv6: false, supportsDNS: true,
                        gateways: [IPAddress("198.51.100.1")!, IPAddress("fe80::1")!])
        let apple = NWPath(path)
        #expect(apple.status == .satisfied)
        #expect(apple.unsatisfiedReason == .notAvailable, "Apple's value when satisfied")
        #expect(apple.linuxUnsatisfiedReason == nil)
        #expect(apple.availableInterfaces.map(\.name) == ["eth0", "wlan0"])
        #expect(apple.availableInterfaces.map(\.type) == [.wiredEthernet, .wifi])
        #expect(apple.availableInterfaces.map(\.index) == [2, 3])
        #expect(apple.isExpensive && apple.isConstrained && apple.supportsIPv4 && !apple.supportsIPv6
                && apple.supportsDNS)
        #expect(apple.gateways == [.hostPort(host: .ipv4(IPv4Address("198.51.100.1")!), port: 0),
                                   .hostPort(host: .ipv6(IPv6Address("fe80::1")!), port: 0)])
        #expect(apple.localEndpoint == nil && apple.remoteEndpoint == nil)
        #expect(apple.debugDescription == path.summary)
        #expect(String(describing: apple) == path.summary)
        #expect(NWPath(Path(status: .requiresConnection)).status == .requiresConnection)
    }

    @Test("Linux reasons: a rejecting route is vpnInactive, every other reason notAvailable, kept precisely beside",
          arguments: UnsatisfiedReason.allCases)
    func reasons(reason: UnsatisfiedReason) {
        let apple = NWPath(Path(status: .unsatisfied, unsatisfiedReason: reason))
        #expect(apple.status == .unsatisfied)
        #expect(apple.unsatisfiedReason == (reason == .routeRejects ? .vpnInactive : .notAvailable))
        #expect(apple.linuxUnsatisfiedReason == reason)
    }

    @Test("usesInterfaceType: the first interface, and a tunnel's underlay as on Apple platforms")
    func usesInterfaceType() {
        let tunnel = NWPath(Path(status: .satisfied, availableInterfaces: [Self.wg0, Self.wlan0]))
        #expect(tunnel.usesInterfaceType(.other) && tunnel.usesInterfaceType(.wifi))
        #expect(!tunnel.usesInterfaceType(.cellular) && !tunnel.usesInterfaceType(.wiredEthernet))
        // ECMP over two physical interfaces: only the first is "used".
        let ecmp = NWPath(Path(status: .satisfied, availableInterfaces: [Self.eth0, Self.wlan0]))
        #expect(ecmp.usesInterfaceType(.wiredEthernet) && !ecmp.usesInterfaceType(.wifi))
        let down = NWPath(Path(status: .unsatisfied, unsatisfiedReason: .noCarrier, availableInterfaces: [Self.eth0]))
        #expect(!down.usesInterfaceType(.wiredEthernet))
        #expect(!NWPath.unknown.usesInterfaceType(.other))
    }

    @Test("NWPath.unknown is what Apple's currentPath is before the first update")
    func unknown() {
        #expect(NWPath.unknown.status == .unsatisfied)
        #expect(NWPath.unknown.unsatisfiedReason == .notAvailable)
        #expect(NWPath.unknown.availableInterfaces.isEmpty && NWPath.unknown.gateways.isEmpty)
        #expect(!NWPath.unknown.supportsIPv4 && !NWPath.unknown.supportsIPv6 && !NWPath.unknown.supportsDNS)
    }

    @Test("paths are equal when every field is: a change of isExpensive alone makes them differ")
    func equality() {
        let base = Path(status: .satisfied, availableInterfaces: [Self.eth0], supportsIPv4: true)
        var expensive = base
        expensive.isExpensive = true
        #expect(NWPath(base) == NWPath(base))
        #expect(NWPath(base) != NWPath(expensive))
    }

    @Test("interface types map both ways", arguments: InterfaceType.allCases)
    func interfaceTypes(type: InterfaceType) {
        #expect(NWInterface.InterfaceType(type).linuxType == type)
        #expect(String(describing: NWInterface.InterfaceType(type)) == type.rawValue)
    }

    @Test("hosts, addresses and ports parse as Apple's do")
    func endpoints() {
        #expect(NWEndpoint.Host("192.0.2.7") == .ipv4(IPv4Address("192.0.2.7")!))
        #expect(NWEndpoint.Host("2001:db8::7") == .ipv6(IPv6Address("2001:db8::7")!))
        #expect(NWEndpoint.Host("example.com") == .name("example.com", nil))
        #expect(IPv4Address("192.0.2.7").map { [UInt8]($0.rawValue) } == [192, 0, 2, 7])
        #expect(IPv4Address(Data([127, 0, 0, 1])) == IPv4Address.loopback)
        #expect(IPv4Address("300.1.1.1") == nil && IPv6Address("2001:db8::g") == nil)
        #expect(IPv4Address.loopback.isLoopback && IPv6Address("fe80::1")!.isLinkLocal
                && IPv4Address("224.0.0.251")!.isMulticast)
        #expect(NWEndpoint.Port("443") == .https && NWEndpoint.Port("x") == nil && NWEndpoint.Port(rawValue: 22)
                == .ssh)
        #expect(NWEndpoint.hostPort(host: "192.0.2.7", port: 80).debugDescription == "192.0.2.7:80")
        #expect(NWEndpoint.hostPort(host: "2001:db8::7", port: 443).debugDescription == "[2001:db8::7]:443")
    }

    /// Through the protocol, as generic code parses: each family takes only its own text.
    static func parsed<Address: PathClient.IPAddress>(_ text: String, as _: Address.Type) -> Data? {
        Address(text)?.rawValue
    }

    @Test("IPAddress's init?(_ string:) parses each family's text through the protocol, and only that family's")
    func genericParsing() {
        #expect(Self.parsed("192.0.2.7", as: IPv4Address.self) == Data([192, 0, 2, 7]))
        #expect(Self.parsed("::1", as: IPv6Address.self) == Data(Array(repeating: 0, count: 15) + [1]))
        #expect(Self.parsed("::1", as: IPv4Address.self) == nil)
        #expect(Self.parsed("192.0.2.7", as: IPv6Address.self) == nil)
    }

    @Test("linkQuality is unknown, Apple's value when nothing is measured, whatever the path")
    func linkQuality() {
        #expect(NWPath(Path(status: .satisfied, availableInterfaces: [Self.wlan0])).linkQuality == .unknown)
        #expect(NWPath.unknown.linkQuality == .unknown)
    }
}

@Suite("NWPathMonitor behaviour", .blocking)
struct NWPathMonitorTests {
    @Test("the handler gets the current path, then each change; currentPath follows; a second start does nothing")
    func handler() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let watched = WatchedAppleMonitor(socketPath: harness.socketPath,
                                          queue: DispatchQueue(label: "pathd.test.apple"))
        let monitor = watched.monitor
        #expect(monitor.queue == nil)
        watched.start()
        monitor.start(queue: DispatchQueue(label: "pathd.test.apple.other"))
        defer { monitor.cancel() }
        #expect(monitor.queue === watched.queue)
        let paths = watched.paths
        let first = try paths.next("the first path")
        #expect(first.status == .satisfied && first.availableInterfaces.map(\.name) == ["eth0"])
        #expect(monitor.currentPath == first)
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let second = try paths.next("the change")
        #expect(second.status == .unsatisfied && second.linuxUnsatisfiedReason == .noCarrier)
        #expect(monitor.currentPath == second)
        #expect(monitor.pathMonitor.currentState == .unavailable(second.path))
    }

    /// Apple declares `currentPath` `{ get set }`: a path assigned is read back until the
    /// next delivery replaces it, and it decides nothing about which paths are delivered.
    @Test("currentPath is settable as Apple's: read back until the next delivery, which still comes")
    func settableCurrentPath() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let watched = WatchedAppleMonitor(socketPath: harness.socketPath,
                                          queue: DispatchQueue(label: "pathd.test.apple"))
        let monitor = watched.monitor
        let assigned = NWPath(Path(status: .unsatisfied, unsatisfiedReason: .noRoute))
        monitor.currentPath = assigned
        #expect(monitor.currentPath == assigned)
        #expect(monitor.debugDescription == "NWPathMonitor: unsatisfied: no route to the Internet (no default route)")
        watched.start()
        defer { monitor.cancel() }
        let first = try watched.paths.next("the first path")
        #expect(first.status == .satisfied)
        #expect(monitor.currentPath == first)
        monitor.currentPath = assigned
        #expect(monitor.currentPath == assigned)
        // A change is still delivered, and replaces the assigned path.
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let second = try watched.paths.next("the change")
        #expect(second.linuxUnsatisfiedReason == .noCarrier)
        #expect(monitor.currentPath == second)
    }

    @Test("""
        for await: the current path first, then changes; a new iteration begins with the current path; cancel ends it
        """,
          .timeLimit(.minutes(1)))
    func iteration() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let monitor = NWPathMonitor(PathMonitor(socketPath: harness.socketPath, mode: .daemon))
        var seen: [NWPath] = []
        for await path in monitor {
            seen.append(path)
            if seen.count == 2 { break }
            harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        }
        #expect(seen.map(\.status) == [.satisfied, .unsatisfied])
        #expect(seen.last?.linuxUnsatisfiedReason == .noCarrier)
        #expect(monitor.queue != nil, "iterating started the monitor")
        var late = monitor.makeAsyncIterator()
        #expect(await late.next() == seen.last)
        monitor.cancel()
        #expect(await late.next() == nil)
    }

    @Test("cancel before start: start does nothing, currentPath stays unknown, iteration ends at once",
          .timeLimit(.minutes(1)))
    func cancelFirst() async throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let monitor = NWPathMonitor(PathMonitor(socketPath: harness.socketPath, mode: .daemon))
        monitor.cancel()
        monitor.start(queue: DispatchQueue(label: "pathd.test.apple.cancelled"))
        #expect(monitor.queue == nil)
        var iterator = monitor.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(monitor.currentPath == .unknown)
        monitor.pathUpdateHandler = { _ in Issue.record("a handler set after cancel was called") }
        #expect(monitor.pathUpdateHandler == nil, "a cancelled monitor keeps no handler")
    }
}
