import PathModel
import PathProtocol
import Testing

@Suite("Request")
struct RequestTests {
    private static func parse(_ text: String) throws(RequestError) -> Request {
        try Request.parse(line: Array(text.utf8))
    }

    /// The error a line must produce, or a recorded issue when it parses.
    private static func failure(_ text: String) -> RequestError? {
        #expect(throws: RequestError.self) { try parse(text) }
    }

    @Test(arguments: RequestOp.allCases.filter { $0 != .reportConnectivity && $0 != .route })
    func parsesEachOp(_ op: RequestOp) throws {
        let request = try Self.parse(#"{"op":"\#(op.rawValue)"}"#)
        #expect(request == Request(op: op))
        #expect(request.id == nil)
        #expect(request.criteria == .any)
    }

    @Test(arguments: [
        (#""abc""#, JSONValue.string("abc")), ("7", .integer(7)), ("-7", .integer(-7)), ("null", .null),
        ("1.5", .double(1.5)), (#""""#, .string("")), (#""\u00e9""#, .string("é")),
    ])
    func echoesScalarIds(idText: String, id: JSONValue) throws {
        #expect(try Self.parse(#"{"op":"ping","id":\#(idText)}"#).id == id)
        #expect(try Self.parse(#"{"id":\#(idText),"op":"status"}"#) == Request(op: .status, id: id))
    }

    @Test(arguments: ["true", "[1]", "{}"])
    func rejectsStructuredOrBooleanIds(idText: String) {
        let error = Self.failure(#"{"op":"ping","id":\#(idText)}"#)
        #expect(error?.code == .badArgument)
        #expect(error?.id == nil)
    }

    @Test func unknownOpEchoesTheId() {
        let error = Self.failure(#"{"op":"reboot","id":"r1"}"#)
        #expect(error?.code == .unknownOp)
        #expect(error?.id == .string("r1"))
        #expect(error?.message.contains("reboot") == true)
        #expect(Self.failure(#"{"op":"Status"}"#)?.code == .unknownOp)
        #expect(Self.failure(#"{"op":""}"#)?.code == .unknownOp)
    }

    @Test(arguments: ["[]", #"["status"]"#, #""status""#, "42", "null", "true", "", "{", #"{"op":"ping"} x"#,
                      #"{"op":"ping","op":"status"}"#, "\u{0}"])
    func nonObjectsAndInvalidJSONAreBadJSON(_ text: String) {
        let error = Self.failure(text)
        #expect(error?.code == .badJSON)
        #expect(error?.id == nil)
    }

    @Test(arguments: [#"{"op":1,"id":5}"#, #"{"op":null,"id":5}"#, #"{"op":["ping"],"id":5}"#, #"{"id":5}"#])
    func missingOrNonStringOpIsBadArgument(_ text: String) {
        let error = Self.failure(text)
        #expect(error?.code == .badArgument)
        #expect(error?.id == .integer(5))
    }

    @Test(arguments: [
        (#"{"requiredInterfaceType":"wifi"}"#, Criteria(requiredInterfaceType: .wifi)),
        (#"{"requiredInterfaceType":"wiredEthernet"}"#, Criteria(requiredInterfaceType: .wiredEthernet)),
        (#"{"requiredInterfaceType":null}"#, Criteria.any),
        ("{}", .any),
        ("null", .any),
        (#"{"prohibitedInterfaceTypes":["cellular","other"]}"#, Criteria(prohibitedInterfaceTypes: [.cellular, .other])),
        (#"{"prohibitedInterfaceTypes":[]}"#, .any),
        (#"{"prohibitedInterfaceTypes":["cellular","cellular"]}"#, Criteria(prohibitedInterfaceTypes: [.cellular])),
        (#"{"requiredInterfaceType":"cellular","prohibitedInterfaceTypes":["wifi"]}"#,
         Criteria(requiredInterfaceType: .cellular, prohibitedInterfaceTypes: [.wifi])),
    ])
    func parsesCriteria(criteriaText: String, expected: Criteria) throws {
        #expect(try Self.parse(#"{"op":"subscribe","criteria":\#(criteriaText)}"#).criteria == expected)
        #expect(try Self.parse(#"{"op":"status","criteria":\#(criteriaText)}"#).criteria == expected)
    }

    @Test(arguments: [
        #"[]"#, #""wifi""#, "1", "true",
        #"{"requiredInterfaceType":"bluetooth"}"#, #"{"requiredInterfaceType":"WiFi"}"#,
        #"{"requiredInterfaceType":1}"#, #"{"requiredInterfaceType":["wifi"]}"#,
        #"{"prohibitedInterfaceTypes":"cellular"}"#, #"{"prohibitedInterfaceTypes":null}"#,
        #"{"prohibitedInterfaceTypes":[1]}"#, #"{"prohibitedInterfaceTypes":["cellular","satellite"]}"#,
        #"{"requiredInterfaceTypes":"wifi"}"#, #"{"expensive":false}"#,
    ])
    func rejectsBadCriteria(criteriaText: String) {
        let error = Self.failure(#"{"op":"subscribe","id":"c","criteria":\#(criteriaText)}"#)
        #expect(error?.code == .badArgument)
        #expect(error?.id == .string("c"))
    }

    @Test(arguments: [RequestOp.ping, .unsubscribe])
    func criteriaOnlyApplyToStatusAndSubscribe(op: RequestOp) throws {
        let error = Self.failure(#"{"op":"\#(op.rawValue)","id":2,"criteria":{"requiredInterfaceType":"wifi"}}"#)
        #expect(error?.code == .badArgument)
        #expect(error?.id == .integer(2))
        // An explicit null is the same as no criteria.
        #expect(try Self.parse(#"{"op":"\#(op.rawValue)","criteria":null}"#) == Request(op: op))
    }

    @Test func unknownTopLevelFieldsAreIgnored() throws {
        #expect(try Self.parse(#"{"op":"ping","client":"pathctl","v":2}"#) == Request(op: .ping))
    }

    @Test(arguments: [
        Request(op: .status),
        Request(op: .ping, id: .string("p\"1\"\n")),
        Request(op: .ping, id: .null),
        Request(op: .unsubscribe, id: .integer(99)),
        Request(op: .subscribe, id: .double(0.25), criteria: Criteria(requiredInterfaceType: .wifi)),
        Request(op: .subscribe, id: .integer(-1), criteria: Criteria(prohibitedInterfaceTypes: [.cellular, .other, .wifi])),
        Request(op: .status, criteria: Criteria(requiredInterfaceType: .cellular, prohibitedInterfaceTypes: [.loopback])),
    ])
    func encodedRoundTripsThroughParse(_ request: Request) throws {
        let line = request.encoded()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try Request.parse(line: line.dropLast()) == request)
    }

    @Test func encodedIsCompactAndSorted() {
        let request = Request(op: .subscribe, id: .integer(1), criteria: Criteria(prohibitedInterfaceTypes: [.wifi, .cellular]))
        #expect(String(decoding: request.encoded(), as: UTF8.self)
            == #"{"op":"subscribe","id":1,"criteria":{"prohibitedInterfaceTypes":["cellular","wifi"]}}"# + "\n")
        #expect(String(decoding: Request(op: .ping).encoded(), as: UTF8.self) == #"{"op":"ping"}"# + "\n")
    }
}
