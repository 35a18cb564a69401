// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

/// `reportLease`: a DHCP client's hook tells pathd what a lease says of the network. The
/// harness's clients are this process, root: trusted (the refusal of other users is a
/// kernel test, DHCPHintTests).
@Suite("DHCP lease reports", .blocking)
struct LeaseReportTests {
    private static let metered = DHCPLease(family: .ipv4, address: Fixture.ip("198.51.100.2"),
                                           server: "198.51.100.1",
                                           hints: NetworkHints(names: [.androidMetered], dnsDomains: ["lan"],
                                                               captivePortal: "https://portal.example/capport"))

    private static func report(_ report: LeaseReport, on interface: String = "eth0", from connection: PathConnection,
                               id: Int64 = 1) throws -> ServerMessage {
        try connection.send(Request(.reportLease(interface: interface, report), id: .integer(id)))
        return try connection.next()
    }

    @Test("ANDROID_METERED makes the path expensive and the portal shows; the lease's end takes both back")
    func meteredLeaseAndItsEnd() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        #expect(!first.path.isExpensive)
        let hook = try harness.connect()
        #expect(try Self.report(.bound(Self.metered), from: hook) == .reported(id: .integer(1)))
        let metered = try subscriber.nextPath().update
        #expect(metered.path.isExpensive)
        #expect(metered.path.availableInterfaces.first?.captivePortal == "https://portal.example/capport")
        #expect(metered.sequence == first.sequence + 1)

        // The same lease renewed changes nothing: no line.
        #expect(try Self.report(.bound(Self.metered), from: hook, id: 2) == .reported(id: .integer(2)))
        try subscriber.expectNothingPending()

        #expect(try Self.report(.ended(.ipv4), from: hook, id: 3) == .reported(id: .integer(3)))
        let ended = try subscriber.nextPath().update
        #expect(ended.path == first.path)
    }

    @Test("the lease is forgotten when the link loses its carrier or the leased address")
    func forgottenWithCarrierAndAddress() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        let hook = try harness.connect()
        _ = try Self.report(.bound(Self.metered), from: hook)
        #expect(try subscriber.nextPath().update.path.isExpensive)

        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier),
                                     .carrierLost(Fixture.ethIndex, at: MonotonicInstant(sinceBoot: .seconds(50)))])
        #expect(try subscriber.nextPath().update.path.status == .unsatisfied)
        harness.network.latest.emit([.linkChanged(Fixture.eth0()),
                                     .carrierRegained(Fixture.ethIndex, at: MonotonicInstant(sinceBoot: .seconds(51)))])
        let back = try subscriber.nextPath().update.path
        #expect(back.status == .satisfied && !back.isExpensive, "the hint outlived the carrier: \(back)")
        #expect(back.availableInterfaces.first?.captivePortal == nil)

        _ = try Self.report(.bound(Self.metered), from: hook, id: 2)
        #expect(try subscriber.nextPath().update.path.isExpensive)
        harness.network.latest.emit([.addressRemoved(Fixture.onlineAddress.key)])
        let lost = try subscriber.waitForPath { !$0.isExpensive }
        #expect(lost.availableInterfaces.first?.captivePortal == nil, "\(lost)")
        _ = first
    }

    @Test("""
        a lease for a link that is gone or has no carrier, or that pathd cannot read, is refused; nobody else's \
        answer changes
        """)
    func badLeases() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        let hook = try harness.connect()
        guard case .error(.badArgument, let gone, .integer(1)) = try Self.report(.bound(Self.metered), on: "usb0",
                                                                                 from: hook) else {
            Issue.record("a lease on a link pathd does not know was taken")
            return
        }
        #expect(gone == "no interface \"usb0\" (it is gone?); the lease is not recorded")
        // The end of a lease on a link that is gone: nothing is left to forget.
        #expect(try Self.report(.ended(.ipv4), on: "usb0", from: hook, id: 2) == .reported(id: .integer(2)))

        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try subscriber.nextPath().update.path.status == .unsatisfied)
        guard case .error(.badArgument, let noCarrier, _) = try Self.report(.bound(Self.metered), from: hook, id: 3)
        else {
            Issue.record("a lease on a link without carrier was taken")
            return
        }
        #expect(noCarrier == "eth0 has no carrier; a lease on it is not recorded")
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        #expect(try subscriber.nextPath().update.path == first.path)

        // Lines pathd cannot read: an error each, the connection stays, and nothing is recorded.
        let raw = try RawClient(path: harness.socketPath)
        for line in [#"{"op":"reportLease","interface":"eth0","lease":{"family":"ipv4","hints":["metered"]}}"#,
                     #"{"op":"reportLease","interface":"eth0","lease":{"family":"ipv4","domains":"lan"}}"#,
                     #"{"op":"reportLease","interface":"eth0","lease":{"family":"ipv4","captivePortal":"# +
                        "\"https://" + String(repeating: "x", count: 600) + "\"}}",
                     #"{"op":"reportLease","interface":"eth0","lease":{"family":"ipv4","address":"not"}}"#] {
            try raw.write(Array((line + "\n").utf8))
            guard case .error(.badArgument, _, _) = try raw.next() else {
                Issue.record("taken: \(line)")
                continue
            }
        }
        try raw.write(Request(.ping, id: .integer(9)).encoded())
        #expect(try raw.next() == .pong(id: .integer(9)))
        try subscriber.expectNothingPending()
        try hook.send(Request(.status(.any)))
        #expect(try hook.nextPath().update.path == first.path)
    }
}
