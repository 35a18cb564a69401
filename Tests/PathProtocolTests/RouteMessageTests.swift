// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathTestFixtures
import Testing

@Suite("route request and reply")
struct RouteMessageTests {
    private static func parse(_ text: String) throws(RequestError) -> Request {
        try Request.parse(line: Array(text.utf8))
    }

    private static func refusal(_ text: String) -> RequestError? {
        #expect(throws: RequestError.self) { try parse(text) }
    }

    @Test("an IPv4 or IPv6 literal is read, normalized, and written back the same", arguments: [
        ("198.51.100.7", "198.51.100.7"), ("2001:DB8:0:0::1", "2001:db8::1"), ("::1", "::1"),
        ("::ffff:192.0.2.1", "::ffff:192.0.2.1"), ("fe80::1", "fe80::1"),
    ])
    func readsDestinations(text: String, normalized: String) throws {
        let request = try Self.parse(#"{"op":"route","destination":"\#(text)","id":7}"#)
        #expect(request == Request(.route(destination: Fixture.ip(normalized)), id: .integer(7)))
        guard case .route(let destination, nil) = request.op else {
            Issue.record("not a route request: \(request)")
            return
        }
        #expect(destination.description == normalized)
        #expect(try Request.parse(line: request.encoded().dropLast()) == request)
    }

    @Test("a name, an empty string, a zone or a non-string is a badArgument that says what to send", arguments: [
        #"{"op":"route","destination":"example.org","id":1}"#, #"{"op":"route","destination":"","id":1}"#,
        #"{"op":"route","destination":"192.0.2","id":1}"#, #"{"op":"route","destination":"192.0.2.256","id":1}"#,
        #"{"op":"route","destination":" 192.0.2.1","id":1}"#, #"{"op":"route","destination":"2001:db8::1/64","id":1}"#,
    ])
    func refusesWhatIsNoAddress(line: String) {
        let error = Self.refusal(line)
        #expect(error?.code == .badArgument)
        #expect(error?.id == .integer(1))
        #expect(error?.message == "destination must be an IP address; resolve names first")
    }

    @Test("a missing, mistyped or zoned destination, or one on another op, is refused with its reason")
    func refusesMisplacedDestinations() {
        let missing = Self.refusal(#"{"op":"route","id":"r"}"#)
        #expect(missing?.code == .badArgument)
        #expect(missing?.id == .string("r"))
        #expect(missing?.message.contains("needs a \"destination\"") == true)
        #expect(Self.refusal(#"{"op":"route","destination":null}"#)?.code == .badArgument)
        let number = Self.refusal(#"{"op":"route","destination":3325256705}"#)
        #expect(number?.code == .badArgument)
        #expect(number?.message.contains("as a string, got number") == true)
        let zoned = Self.refusal(#"{"op":"route","destination":"fe80::1%eth0"}"#)
        #expect(zoned?.code == .badArgument)
        #expect(zoned?.message.contains("send the zone as \"interface\"") == true)
        for op in ["status", "ping", "interfaces"] {
            let error = Self.refusal(#"{"op":"\#(op)","destination":"192.0.2.1"}"#)
            #expect(error?.code == .badArgument)
            #expect(error?.message == "\"destination\" applies to subscribe and route only")
        }
        #expect(Self.refusal(#"{"op":"route","destination":"192.0.2.1","criteria":{}}"#)?.code == .badArgument)
    }

    @Test("a link-local IPv6 destination takes its zone as \"interface\": a name or an index, read and written back",
          arguments: [("fe80::1", "rv1"), ("FE80::1", "2"), ("ff02::1", "eth0.100"), ("ff12::1:2", "wlp0s20f3")])
    func readsZones(destination: String, zone: String) throws {
        let request = try Self.parse(#"{"op":"route","destination":"\#(destination)","interface":"\#(zone)"}"#)
        #expect(request.op == .route(destination: Fixture.ip(destination.lowercased()), interface: zone))
        #expect(try Request.parse(line: request.encoded().dropLast()) == request)
        let null = try Self.parse(#"{"op":"route","destination":"\#(destination)","interface":null}"#)
        #expect(null.op == .route(destination: Fixture.ip(destination.lowercased()), interface: nil))
    }

    @Test("a zone on an address the routes decide, a zone that names no interface, or one on another op is refused")
    func refusesMisplacedZones() {
        for destination in ["2001:db8::1", "198.51.100.7", "169.254.1.1", "ff05::1", "::ffff:192.0.2.1"] {
            let error = Self.refusal(#"{"op":"route","destination":"\#(destination)","interface":"eth0","id":2}"#)
            #expect(error?.code == .badArgument)
            #expect(error?.id == .integer(2))
            #expect(error?.message.hasPrefix("a zone (interface) applies to a link-local IPv6 destination only")
                    == true,
                    "\(destination): \(error?.message ?? "accepted")")
        }
        for zone in [#""""#, #""a/b""#, #""eth 0""#, #""sixteen-bytes-xx""#, "3", #"["eth0"]"#] {
            let error = Self.refusal(#"{"op":"route","destination":"fe80::1","interface":\#(zone)}"#)
            #expect(error?.code == .badArgument, "\(zone)")
            #expect(error?.message.hasPrefix("interface must be an interface name or index as a string") == true)
        }
        let onStatus = Self.refusal(#"{"op":"status","interface":"eth0"}"#)
        #expect(onStatus?.message == "\"interface\" applies to subscribe, route and reportLease only")
    }

    @Test("the request forms, byte for byte (Golden/route-request.jsonl)")
    func requestGoldenFile() throws {
        let requests = [
            Request(.route(destination: Fixture.ip("198.51.100.7")), id: .integer(7)),
            Request(.route(destination: Fixture.ip("fe80::1"), interface: "eth0")),
            Request(.route(destination: Fixture.ip("ff02::1"), interface: "3"), id: .string("all-nodes")),
        ]
        let expected = try Fixture.golden("route-request.jsonl")
        let encoded = requests.flatMap { $0.encoded() }
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        let lines = expected.split(separator: UInt8(ascii: "\n"))
        #expect(try lines.map { try Request.parse(line: $0) } == requests)
    }

    @Test("a reply decodes to what was encoded, with and without the optional members")
    func replyRoundTrips() throws {
        let reports = [
            RouteReport(destination: Fixture.ip("2001:db8::7"), status: .satisfied,
                        interface: Interface(name: "wg0", index: InterfaceIndex(rawValue: 9), type: .other,
                                             isTunnel: true),
                        source: Fixture.ip("2001:db8::2"), table: 51820, isExpensive: true, isConstrained: true),
            RouteReport(destination: Fixture.ip("192.0.2.9"), status: .unsatisfied, unsatisfiedReason: .routeRejects),
            RouteReport(destination: Fixture.ip("192.0.2.9"), status: .requiresConnection,
                        interface: Interface(name: "ppp0", index: InterfaceIndex(rawValue: 4), type: .cellular),
                        isExpensive: true),
        ]
        for report in reports {
            let message = ServerMessage.route(report, generation: Generation(rawValue: 12), id: .string("x"))
            #expect(try ServerMessage.decode(line: message.encoded().dropLast()) == message)
        }
    }

    @Test("unknown members are ignored; a broken address or a missing status is an error")
    func decodingIsTolerantButChecked() throws {
        let base = #""type":"route","destination":"192.0.2.9","status":"satisfied","generation":1"#
        let decoded = try ServerMessage.decode(line: Array("{\(base),\"via\":\"carrier pigeon\"}".utf8))
        #expect(decoded == .route(RouteReport(destination: Fixture.ip("192.0.2.9"), status: .satisfied),
                                  generation: .first, id: nil))
        for broken in [#"{"type":"route","status":"satisfied","generation":1}"#,
                       #"{"type":"route","destination":"192.0.2.9","generation":1}"#,
                       "{\(base),\"gateway\":\"router\"}", "{\(base),\"interface\":{\"name\":\"eth0\"}}",
                       "{\(base),\"table\":-1}"] {
            #expect(throws: MessageDecodingError.self) { try ServerMessage.decode(line: Array(broken.utf8)) }
        }
    }

    @Test("the reason names the destination for noRoute and the interface otherwise")
    func reasons() {
        let noRoute = RouteReport(destination: Fixture.ip("198.51.100.7"), status: .unsatisfied,
                                  unsatisfiedReason: .noRoute)
        #expect(noRoute.reason == "no route to 198.51.100.7")
        #expect(noRoute.summary == "unsatisfied: no route to 198.51.100.7")
        let carrier = RouteReport(destination: Fixture.ip("198.51.100.7"), status: .unsatisfied,
                                  unsatisfiedReason: .noCarrier, reasonInterface: "eth0")
        #expect(carrier.reason == UnsatisfiedReason.noCarrier.explanation(interface: "eth0"))
        let satisfied = RouteReport(destination: Fixture.ip("198.51.100.7"), status: .satisfied,
                                    interface: Interface(name: "eth0", index: InterfaceIndex(rawValue: 2),
                                                         type: .wiredEthernet),
                                    source: Fixture.ip("192.0.2.2"), gateway: Fixture.ip("192.0.2.1"))
        #expect(satisfied.reason == nil)
        #expect(satisfied.summary == "satisfied via eth0 (gateway 192.0.2.1, source 192.0.2.2)")
    }
}
