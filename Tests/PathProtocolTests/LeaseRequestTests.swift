// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathTestFixtures
import Testing

@Suite("reportLease requests")
struct LeaseRequestTests {
    private static func parse(_ text: String) throws(RequestError) -> Request {
        try Request.parse(line: Array(text.utf8))
    }

    private static func refusal(_ text: String) -> RequestError? {
        #expect(throws: RequestError.self) { try parse(text) }
    }

    private static let hotspot = DHCPLease(
        family: .ipv4, address: Fixture.ip("192.168.43.17"), server: "192.168.43.1",
        hints: NetworkHints(names: [.androidMetered], dnsDomains: ["lan"],
                            captivePortal: "https://portal.example/capport"))

    @Test("the request forms, byte for byte (Golden/lease-request.jsonl), and back")
    func goldenForms() throws {
        let requests = [
            Request(.reportLease(interface: "wlan0", .bound(Self.hotspot)), id: .string("hook")),
            Request(.reportLease(interface: "eth0", .bound(DHCPLease(
                family: .ipv6, address: Fixture.ip("2001:db8::17"), server: "000100012b3c4d5e020000000001")))),
            Request(.reportLease(interface: "wlan0", .ended(.ipv4))),
        ]
        let expected = try Fixture.golden("lease-request.jsonl")
        #expect(requests.flatMap { $0.encoded() } == expected)
        for (request, line) in zip(requests, expected.split(separator: UInt8(ascii: "\n"))) {
            #expect(try Request.parse(line: line) == request)
        }
    }

    @Test("what the hook gives is read as pathd keeps it: domains lowercase, once; the unrestricted URN is no portal")
    func normalizes() throws {
        let request = try Self.parse(#"{"op":"reportLease","interface":"7","lease":{"family":"ipv4","# +
                                     #""domains":["Hotel.Example.","hotel.example"],"hints":[],"# +
                                     #""captivePortal":"urn:ietf:params:capport:unrestricted","server":null}}"#)
        #expect(request.op == .reportLease(interface: "7", .bound(DHCPLease(
            family: .ipv4, hints: NetworkHints(dnsDomains: ["hotel.example"])))))
    }

    @Test("bad input is badArgument, with the id, saying what is wrong", arguments: [
        (#""lease":{"family":"ipv4"}"#, "reportLease needs \"interface\""),
        (#""interface":"eth0""#, "reportLease needs a \"lease\" object"),
        (#""interface":"eth0","lease":null"#, "reportLease needs a \"lease\" object"),
        (#""interface":"eth/0","lease":{"family":"ipv4"}"#, "interface must be an interface name or index"),
        (#""interface":"eth0","lease":"bound""#, "\"lease\" must be an object"),
        (#""interface":"eth0","lease":{"address":"192.0.2.1"}"#, "a lease needs \"family\": ipv4 or ipv6"),
        (#""interface":"eth0","lease":{"family":"ipv5"}"#, "a lease needs \"family\": ipv4 or ipv6"),
        (#""interface":"eth0","lease":{"family":"ipv4","metered":true}"#, "unknown lease field \"metered\""),
        (#""interface":"eth0","lease":{"family":"ipv4","hints":["metered"]}"#,
         "unknown hint \"metered\": a lease's hints are androidMetered"),
        (#""interface":"eth0","lease":{"family":"ipv4","hints":["ipheth"]}"#, "unknown hint \"ipheth\""),
        (#""interface":"eth0","lease":{"family":"ipv4","hints":"androidMetered"}"#, "must be an array of hint names"),
        (#""interface":"eth0","lease":{"family":"ipv4","address":"2001:db8::1"}"#, "must be an IPv4 address"),
        (#""interface":"eth0","lease":{"family":"ipv4","server":"router"}"#, "the server's IPv4 address"),
        (#""interface":"eth0","lease":{"family":"ipv4","domains":["bad domain"]}"#, "got \"bad domain\""),
        (#""interface":"eth0","lease":{"family":"ipv4","domains":[7]}"#, "got number"),
        (#""interface":"eth0","lease":{"family":"ipv4","captivePortal":"ftp://x.example/"}"#, "https:// or http://"),
        (#""interface":"eth0","lease":{"family":"ipv4","ended":false}"#, "\"ended\" must be true"),
        (#""interface":"eth0","lease":{"family":"ipv4","ended":true,"address":"192.0.2.1"}"#,
         "an ended lease has only \"family\" and \"ended\", not \"address\""),
        (#""interface":"eth0","destination":"192.0.2.1","lease":{"family":"ipv4"}"#,
         "\"destination\" applies to subscribe and route only"),
    ])
    func refused(members: String, message: String) {
        let error = Self.refusal(#"{"op":"reportLease","id":9,\#(members)}"#)
        #expect(error?.code == .badArgument)
        #expect(error?.id == .integer(9))
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
    }

    @Test("an oversized lease is refused, not truncated")
    func oversized() {
        let domains = (1...(NetworkHints.maximumDomains + 1)).map { "\"d\($0).example\"" }.joined(separator: ",")
        let many = Self.refusal(#"{"op":"reportLease","interface":"eth0","lease":{"family":"ipv4","# +
                                #""domains":[\#(domains)]}}"#)
        #expect(many?.message.contains("at most \(NetworkHints.maximumDomains)") == true)
        let uri = "https://" + String(repeating: "p", count: CaptivePortalURI.maximumBytes) + "/"
        let long = Self.refusal(#"{"op":"reportLease","interface":"eth0","lease":{"family":"ipv4","# +
                                #""captivePortal":"\#(uri)"}}"#)
        #expect(long?.message.contains("longer than \(CaptivePortalURI.maximumBytes) bytes") == true)
        let label = String(repeating: "a", count: 64)
        let domain = Self.refusal(#"{"op":"reportLease","interface":"eth0","lease":{"family":"ipv4","# +
                                  #""domains":["\#(label).example"]}}"#)
        #expect(domain?.code == .badArgument)
    }

    @Test("lease and its interface belong to reportLease")
    func misplaced() {
        #expect(Self.refusal(#"{"op":"status","lease":{"family":"ipv4"}}"#)?.message
                == "\"lease\" applies to reportLease only")
        #expect(Self.refusal(#"{"op":"ping","interface":"eth0"}"#)?.message
                == "\"interface\" applies to subscribe, route and reportLease only")
    }
}
