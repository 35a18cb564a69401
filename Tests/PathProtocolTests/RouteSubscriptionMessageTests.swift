// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathTestFixtures
import Testing

/// `subscribe` with a `destination`: the request, and the `route` lines with a `sequence`.
@Suite("route subscription request and lines")
struct RouteSubscriptionMessageTests {
    private static func parse(_ text: String) throws(RequestError) -> Request {
        try Request.parse(line: Array(text.utf8))
    }

    private static func refusal(_ text: String) -> RequestError? {
        #expect(throws: RequestError.self) { try parse(text) }
    }

    @Test("a destination, with a zone for a link-local one, is read and written back the same")
    func readsAndWrites() throws {
        let plain = try Self.parse(#"{"op":"subscribe","id":"db","destination":"2001:DB8::7"}"#)
        #expect(plain == Request(.subscribe(.route(destination: Fixture.ip("2001:db8::7"))), id: .string("db")))
        #expect(plain.op.name == .subscribe)
        #expect(String(decoding: plain.encoded(), as: UTF8.self)
            == #"{"op":"subscribe","id":"db","destination":"2001:db8::7"}"# + "\n")
        let zoned = try Self.parse(#"{"op":"subscribe","destination":"fe80::1","interface":"eth0"}"#)
        #expect(zoned.op == .subscribe(.route(destination: Fixture.ip("fe80::1"), interface: "eth0")))
        #expect(try Request.parse(line: zoned.encoded().dropLast()) == zoned)
        // A null destination is no destination: a path subscription.
        #expect(try Self.parse(#"{"op":"subscribe","destination":null}"#).op == .subscribe(.path(.any)))
    }

    @Test("criteria with a destination, a zone without one, a name or a zone on a routed address are refused")
    func refusals() {
        let both = Self.refusal(#"{"op":"subscribe","id":1,"destination":"192.0.2.1","criteria":{}}"#)
        #expect(both?.code == .badArgument)
        #expect(both?.id == .integer(1))
        #expect(both?.message == #"a subscription is to a path ("criteria") or to a route ("destination"), not both"#)
        let zoneAlone = Self.refusal(#"{"op":"subscribe","interface":"eth0"}"#)
        #expect(zoneAlone?.message == #""interface" is the zone of a "destination": subscribe to a route with both"#)
        let name = Self.refusal(#"{"op":"subscribe","destination":"db.example.org"}"#)
        #expect(name?.message == "destination must be an IP address; resolve names first")
        let routed = Self.refusal(#"{"op":"subscribe","destination":"192.0.2.1","interface":"eth0"}"#)
        #expect(routed?.message.hasPrefix("a zone (interface) applies to a link-local IPv6 destination only") == true)
        let other = Self.refusal(#"{"op":"subscribe","destination":"192.0.2.1","limit":1}"#)
        #expect(other?.message == #""limit" applies to history only"#)
    }

    @Test("a route line with a sequence is a subscription's; without one, the reply to route")
    func decodesBoth() throws {
        let base = #""type":"route","destination":"192.0.2.9","status":"satisfied","generation":2"#
        let report = RouteReport(destination: Fixture.ip("192.0.2.9"), status: .satisfied)
        let update = try ServerMessage.decode(line: Array("{\(base),\"sequence\":5,\"id\":\"x\"}".utf8))
        #expect(update == .routeUpdate(RouteUpdate(generation: Generation(rawValue: 2), sequence: 5, report: report),
                                       id: .string("x")))
        #expect(update.forSubscriber == .route(RouteUpdate(generation: Generation(rawValue: 2), sequence: 5,
                                                           report: report), id: .string("x")))
        let reply = try ServerMessage.decode(line: Array("{\(base)}".utf8))
        #expect(reply == .route(report, generation: Generation(rawValue: 2), id: nil))
        #expect(reply.forSubscriber == nil, "the reply to a route request is no subscription's line")
        #expect(throws: MessageDecodingError.self) {
            try ServerMessage.decode(line: Array("{\(base),\"sequence\":-1}".utf8))
        }
    }

    @Test("a link-local destination whose zone is gone says so")
    func zoneGoneReason() {
        let gone = RouteReport(destination: Fixture.ip("fe80::1"), status: .unsatisfied,
                               unsatisfiedReason: .noInterface, reasonInterface: "usb0")
        #expect(gone.reason == "usb0 is gone or down (the zone of fe80::1%usb0)")
        let routed = RouteReport(destination: Fixture.ip("192.0.2.1"), status: .unsatisfied,
                                 unsatisfiedReason: .noInterface, reasonInterface: "eth0")
        #expect(routed.reason == UnsatisfiedReason.noInterface.explanation(interface: "eth0"))
    }
}
