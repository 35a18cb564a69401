// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

/// The `route` request against a daemon whose kernel is the fake network: the lookup
/// crosses to the source's queue and back, and the reply keeps its place.
@Suite("route request", .blocking)
struct RouteRequestTests {

    static func line(_ text: String) -> [UInt8] { Array(text.utf8) + [10] }

    @Test("the kernel's answer for the address, judged against the daemon's snapshot")
    func answersFromTheKernel() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        let client = try harness.connect()
        try client.send(Request(.route(destination: Fixture.routeDestination), id: .string("r")))
        let expected = RouteReport(destination: Fixture.routeDestination, status: .satisfied,
                                   interface: Fixture.eth0Interface, source: Fixture.onlineAddress.address,
                                   gateway: Fixture.ip("198.51.100.1"), table: 254)
        #expect(try client.next() == .route(expected, generation: .first, id: .string("r")))
        // An address the fake kernel has no route for; IPv6, of which the host has no
        // address, says so, as a path would.
        try client.send(Request(.route(destination: Fixture.ip("192.0.2.99"))))
        guard case .route(let report, _, nil) = try client.next() else {
            Issue.record("expected a route reply")
            return
        }
        #expect(report.unsatisfiedReason == .noRoute)
        try client.send(Request(.route(destination: Fixture.ip("2001:db8::9"))))
        guard case .route(let v6, _, nil) = try client.next() else {
            Issue.record("expected a route reply")
            return
        }
        #expect(v6.unsatisfiedReason == .noAddress)
        #expect(harness.network.lookedUp == [Fixture.routeDestination, Fixture.ip("192.0.2.99"),
                                             Fixture.ip("2001:db8::9")])
    }

    @Test("a slow lookup holds only its own connection, and its reply comes before the next request's")
    func slowLookupKeepsOrderAndBlocksNobody() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        let gate = harness.network.holdNextLookup()
        let asking = try RawClient(path: harness.socketPath)
        try asking.write(Self.line(#"{"op":"route","destination":"203.0.113.50","id":1}"#)
            + Self.line(#"{"op":"ping","id":2}"#))
        // While the lookup waits on the fake kernel's queue, another client is served.
        let other = try RawClient(path: harness.socketPath)
        try other.write(Self.line(#"{"op":"ping","id":"other"}"#))
        #expect(try other.next() == .pong(id: .string("other")))
        gate.signal()
        guard case .route(let report, _, .integer(1)) = try asking.next() else {
            Issue.record("the route reply must come first")
            return
        }
        #expect(report.status == .satisfied)
        #expect(try asking.next() == .pong(id: .integer(2)))
    }

    @Test("a daemon that stops while a lookup waits sends shuttingDown and no late route line")
    func stopWhileWaiting() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let gate = harness.network.holdNextLookup()
        let client = try RawClient(path: harness.socketPath)
        try client.write(Self.line(#"{"op":"route","destination":"203.0.113.50","id":1}"#))
        #expect(harness.network.waitForLookup(), "the lookup never reached the kernel")
        harness.stop()
        gate.signal()
        guard case .error(.shuttingDown, _, nil) = try client.next() else {
            Issue.record("expected shuttingDown")
            return
        }
        #expect(throws: RawClient.Closed.self) { try client.next() }
    }

    @Test("a lookup the kernel could not answer is lookupFailed, and the connection goes on")
    func failedLookup() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Fixture.routeDestination, .failure(RouteLookupError("request socket is closed")))
        let client = try RawClient(path: harness.socketPath)
        try client.write(Self.line(#"{"op":"route","destination":"203.0.113.50","id":3}"#))
        guard case .error(.lookupFailed, let message, .integer(3)) = try client.next() else {
            Issue.record("expected lookupFailed")
            return
        }
        #expect(message.contains("203.0.113.50") && message.contains("request socket is closed"))
        try client.write(Self.line(#"{"op":"ping","id":4}"#))
        #expect(try client.next() == .pong(id: .integer(4)))
    }

    @Test("a name is refused before any lookup, and the daemon goes on serving")
    func namesAreRefused() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        try client.write(Self.line(#"{"op":"route","destination":"example.org","id":5}"#))
        #expect(try client.next() == .error(code: .badArgument,
                                            message: "destination must be an IP address; resolve names first",
                                            id: .integer(5)))
        #expect(harness.network.lookedUp.isEmpty)
        try client.write(Self.line(#"{"op":"ping"}"#))
        #expect(try client.next() == .pong(id: nil))
    }

    @Test("a route request followed by end of input is answered before the connection closes")
    func answeredAfterEndOfInput() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        let gate = harness.network.holdNextLookup()
        let client = try RawClient(path: harness.socketPath)
        // The last request without its newline, then end of input, while the lookup waits.
        try client.write(Array(#"{"op":"ping","id":1}"#.utf8) + [10]
            + Array(#"{"op":"route","destination":"203.0.113.50","id":2}"#.utf8))
        client.finishWriting()
        #expect(try client.next() == .pong(id: .integer(1)))
        gate.signal()
        guard case .route(_, _, .integer(2)) = try client.next() else {
            Issue.record("expected the route reply")
            return
        }
        #expect(throws: RawClient.Closed.self) { try client.next() }
    }

    @Test("a route is judged by the snapshot after a link change")
    func followsTheSnapshot() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        let client = try harness.connect()
        try client.send(Request(.subscribe(.path(.any)), id: .string("s")))
        _ = try client.nextPath()
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try client.nextPath().update.path.unsatisfiedReason == .noCarrier)
        try client.send(Request(.route(destination: Fixture.routeDestination), id: .integer(9)))
        guard case .route(let report, _, .integer(9)) = try client.next() else {
            Issue.record("expected a route reply")
            return
        }
        #expect(report.unsatisfiedReason == .noCarrier)
        #expect(report.reasonInterface == "eth0")
        #expect(report.interface == Fixture.eth0Interface)
    }

    @Test("an IPv4-mapped address is looked up as IPv4, where its traffic goes, and answered as asked")
    func mappedAddressesAreLookedUpAsIPv4() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        harness.network.setRoute(to: Fixture.routeDestination, .success(Fixture.routeViaEth0))
        let client = try RawClient(path: harness.socketPath)
        try client.write(Self.line(#"{"op":"route","destination":"::ffff:203.0.113.50","id":1}"#))
        guard case .route(let report, _, .integer(1)) = try client.next() else {
            Issue.record("expected a route reply")
            return
        }
        #expect(harness.network.lookedUp == [Fixture.routeDestination])
        #expect(report.destination == Fixture.ip("::ffff:203.0.113.50"))
        #expect(report.status == .satisfied)
        #expect(report.source == Fixture.onlineAddress.address)
    }

    @Test("a zone is looked up through that interface (RTA_OIF), by name or index; an unknown one is badArgument")
    func zones() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let linkLocal = Fixture.ip("fe80::1")
        harness.network.setRoute(to: linkLocal, .success(.route(RouteAnswer(
            type: .unicast, outputInterface: Fixture.ethIndex, table: 254, preferredSource: Fixture.ip("fe80::2")))))
        let client = try RawClient(path: harness.socketPath)
        try client.write(Self.line(#"{"op":"route","destination":"fe80::1","interface":"eth0","id":1}"#)
            + Self.line(#"{"op":"route","destination":"fe80::1","interface":"2","id":2}"#))
        for id in [1, 2] {
            guard case .route(let report, _, .integer(Int64(id))) = try client.next() else {
                Issue.record("expected route reply \(id)")
                return
            }
            #expect(report.status == .satisfied, "a link-local source serves a link-local destination: \(report)")
            #expect(report.interface == Fixture.eth0Interface)
        }
        #expect(harness.network.lookedUpThrough == [Fixture.ethIndex, Fixture.ethIndex])
        try client.write(Self.line(#"{"op":"route","destination":"fe80::1","interface":"wlan9","id":3}"#))
        guard case .error(.badArgument, let message, .integer(3)) = try client.next() else {
            Issue.record("expected badArgument")
            return
        }
        #expect(message.hasPrefix("no interface \"wlan9\" (the zone of fe80::1%wlan9)"), "\(message)")
        #expect(harness.network.lookedUp.count == 2, "an unknown zone is not looked up")
        try client.write(Self.line(#"{"op":"ping"}"#))
        #expect(try client.next() == .pong(id: nil))
    }
}
