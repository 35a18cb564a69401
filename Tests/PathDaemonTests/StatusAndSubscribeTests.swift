// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Testing

@Suite("status and subscribe over the socket", .blocking)
struct StatusAndSubscribeTests {
    @Test("hello, then status answers one path line with generation and sequence")
    func statusReply() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        #expect(client.hello?.protocolVersion == ProtocolVersion.current)
        #expect(client.hello?.generation == .first)
        try client.send(Request(.status(.any), id: .integer(7)))
        let (update, id) = try client.nextPath()
        #expect(id == .integer(7))
        #expect(update.generation == .first)
        #expect(update.sequence == 1)
        #expect(update.path.status == .satisfied)
        #expect(update.path.availableInterfaces.map(\.name) == ["eth0"])
        #expect(update.path.supportsIPv4)
        #expect(!update.path.supportsIPv6)
        #expect(update.path.gateways == [IPAddress("198.51.100.1")!])
    }

    @Test("a subscriber gets the current path, then one line per change, contiguous")
    func subscription() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (client, first) = try harness.connectAndSubscribe()
        #expect(first.path.status == .satisfied)

        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let second = try client.nextPath().update
        #expect(second.path.status == .unsatisfied)
        #expect(second.path.unsatisfiedReason == .noCarrier)
        #expect(second.path.reasonInterface == "eth0")
        #expect(second.sequence == first.sequence + 1)

        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        let third = try client.nextPath().update
        #expect(third.path.status == .satisfied)
        #expect(third.sequence == second.sequence + 1)
    }

    @Test("an evaluation that yields the same path publishes nothing")
    func identicalEventsPublishNothing() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (client, first) = try harness.connectAndSubscribe()
        // The same link again, an address on loopback, a repeated lookup: no change.
        harness.network.latest.emit([.linkChanged(Fixture.eth0()), .routeLookup(.ipv4, Fixture.onlineDefaultRoute)])
        harness.network.latest.emit([.addressChanged(InterfaceAddress(interface: Fixture.lo.index,
                                                                      address: IPAddress("127.0.0.1")!,
                                                                      prefixLength: 8, scope: .host))])
        // A real change after them: the next line must be this one, nothing before it.
        harness.network.latest.emit([.routeLookup(.ipv4, .noRoute)])
        let next = try client.nextPath().update
        #expect(next.sequence == first.sequence + 1)
        #expect(next.path.unsatisfiedReason == .noRoute)
    }

    @Test("subscriptions with criteria are answered per criteria and tagged by id")
    func criteriaSubscriptions() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        try client.send(Request(.subscribe(.path(Criteria(requiredInterfaceType: .wifi))), id: .string("wifi")))
        let wifi = try client.nextPath()
        #expect(wifi.id == .string("wifi"))
        #expect(wifi.update.path.status == .unsatisfied)
        #expect(wifi.update.path.unsatisfiedReason == .interfaceTypeExcluded)
        try client.send(Request(.subscribe(.path(.any)), id: .string("any")))
        let any = try client.nextPath()
        #expect(any.id == .string("any"))
        #expect(any.update.path.status == .satisfied)

        // Losing the route changes the default path only; the wifi answer stays the same.
        harness.network.latest.emit([.routeLookup(.ipv4, .noRoute)])
        let change = try client.nextPath()
        #expect(change.id == .string("any"))
        #expect(change.update.path.unsatisfiedReason == .noRoute)

        try client.send(Request(.unsubscribe, id: .string("any")))
        #expect(try client.next() == .unsubscribed(id: .string("any")))
        try client.send(Request(.unsubscribe, id: .string("any")))
        guard case .error(.unknownSubscription, _, .string("any")) = try client.next() else {
            Issue.record("a second unsubscribe must fail with unknownSubscription")
            return
        }
        // No more lines for "any": the next reply on the connection is the pong.
        harness.network.latest.emit([.routeLookup(.ipv4, Fixture.onlineDefaultRoute)])
        try client.expectNothingPending()
    }

    @Test("DNS configuration changes the path")
    func dnsChange() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (client, first) = try harness.connectAndSubscribe()
        #expect(first.path.supportsDNS == false)
        harness.queue.sync { harness.service.setDNSConfigured(true) }
        #expect(try client.nextPath().update.path.supportsDNS == true)
    }
}
