// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathTestFixtures
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

    @Test(arguments: [RequestOp.status(.any), .subscribe(.path(.any)), .unsubscribe, .ping, .interfaces, .reload,
                      .metrics(format: nil), .history(since: nil, limit: nil)])
    func parsesEachOp(_ op: RequestOp) throws {
        let request = try Self.parse(#"{"op":"\#(op.name.rawValue)"}"#)
        #expect(request == Request(op))
        #expect(request.id == nil)
    }

    @Test(arguments: [
        (#""abc""#, JSONValue.string("abc")), ("7", .integer(7)), ("-7", .integer(-7)), ("null", .null),
        ("1.5", .double(1.5)), (#""""#, .string("")), (#""\u00e9""#, .string("é")),
    ])
    func echoesScalarIds(idText: String, id: JSONValue) throws {
        #expect(try Self.parse(#"{"op":"ping","id":\#(idText)}"#).id == id)
        #expect(try Self.parse(#"{"id":\#(idText),"op":"status"}"#) == Request(.status(.any), id: id))
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
        (#"{"prohibitedInterfaceTypes":["cellular","other"]}"#,
         Criteria(prohibitedInterfaceTypes: [.cellular, .other])),
        (#"{"prohibitedInterfaceTypes":[]}"#, .any),
        (#"{"prohibitedInterfaceTypes":["cellular","cellular"]}"#, Criteria(prohibitedInterfaceTypes: [.cellular])),
        (#"{"requiredInterfaceType":"cellular","prohibitedInterfaceTypes":["wifi"]}"#,
         Criteria(requiredInterfaceType: .cellular, prohibitedInterfaceTypes: [.wifi])),
        (#"{"prohibitExpensivePaths":true}"#, Criteria(prohibitExpensivePaths: true)),
        (#"{"prohibitConstrainedPaths":true}"#, Criteria(prohibitConstrainedPaths: true)),
        (#"{"prohibitExpensivePaths":false,"prohibitConstrainedPaths":null}"#, .any),
        (#"{"prohibitConstrainedPaths":true,"prohibitExpensivePaths":true,"prohibitedInterfaceTypes":["wifi"]}"#,
         Criteria(prohibitedInterfaceTypes: [.wifi], prohibitExpensivePaths: true, prohibitConstrainedPaths: true)),
        (#"{"requiredNetwork":"home"}"#, Criteria(requiredNetwork: "home")),
        (#"{"requiredNetwork":null,"prohibitedNetworks":[]}"#, .any),
        (#"{"prohibitedNetworks":["hotspot","hotel-wifi","hotspot"]}"#,
         Criteria(prohibitedNetworks: ["hotspot", "hotel-wifi"])),
        (#"{"requiredNetwork":"3F2A00000000000000000000000000AB"}"#,
         Criteria(requiredNetwork: "3F2A00000000000000000000000000AB")),
    ])
    func parsesCriteria(criteriaText: String, expected: Criteria) throws {
        #expect(try Self.parse(#"{"op":"subscribe","criteria":\#(criteriaText)}"#).op == .subscribe(.path(expected)))
        #expect(try Self.parse(#"{"op":"status","criteria":\#(criteriaText)}"#).op == .status(expected))
    }

    @Test(arguments: [
        #"[]"#, #""wifi""#, "1", "true",
        #"{"requiredInterfaceType":"bluetooth"}"#, #"{"requiredInterfaceType":"WiFi"}"#,
        // pathctl's and pathd.conf's everyday words are not the protocol's: it takes exact names.
        #"{"requiredInterfaceType":"wired"}"#, #"{"prohibitedInterfaceTypes":["ethernet"]}"#,
        #"{"requiredInterfaceType":"WIFI"}"#,
        #"{"requiredInterfaceType":1}"#, #"{"requiredInterfaceType":["wifi"]}"#,
        #"{"prohibitedInterfaceTypes":"cellular"}"#, #"{"prohibitedInterfaceTypes":null}"#,
        #"{"prohibitedInterfaceTypes":[1]}"#, #"{"prohibitedInterfaceTypes":["cellular","satellite"]}"#,
        #"{"requiredInterfaceTypes":"wifi"}"#, #"{"expensive":false}"#,
        #"{"prohibitExpensivePaths":"yes"}"#, #"{"prohibitExpensivePaths":1}"#,
        #"{"prohibitConstrainedPaths":[true]}"#, #"{"prohibitExpensivePath":true}"#,
        #"{"requiredNetwork":["home"]}"#, #"{"requiredNetwork":""}"#, #"{"requiredNetwork":"home wifi"}"#,
        #"{"requiredNetwork":"-home"}"#, #"{"prohibitedNetworks":"hotspot"}"#, #"{"prohibitedNetworks":[7]}"#,
        #"{"prohibitedNetworks":null}"#, #"{"network":"home"}"#,
    ])
    func rejectsBadCriteria(criteriaText: String) {
        let error = Self.failure(#"{"op":"subscribe","id":"c","criteria":\#(criteriaText)}"#)
        #expect(error?.code == .badArgument)
        #expect(error?.id == .string("c"))
    }

    @Test(arguments: [RequestOp.ping, .unsubscribe])
    func criteriaOnlyApplyToStatusAndSubscribe(op: RequestOp) throws {
        let error = Self.failure(#"{"op":"\#(op.name.rawValue)","id":2,"criteria":{"requiredInterfaceType":"wifi"}}"#)
        #expect(error?.code == .badArgument)
        #expect(error?.id == .integer(2))
        #expect(error?.message == #""criteria" applies to status and subscribe only"#)
        // An explicit null is the same as no criteria.
        #expect(try Self.parse(#"{"op":"\#(op.name.rawValue)","criteria":null}"#) == Request(op))
    }

    /// Each op takes exactly its fields; the first problem in the documented field order
    /// (criteria, connectivity, format, since, limit, destination) is the one reported.
    @Test(arguments: [
        (#"{"op":"status","connectivity":null}"#, #""connectivity" applies to reportConnectivity only"#),
        (#"{"op":"reportConnectivity","format":"prometheus"}"#, #"reportConnectivity needs a "connectivity" object"#),
        (#"{"op":"history","since":"soon","destination":"192.0.2.1"}"#,
         #""since" must be a time in seconds since the epoch (a number)"#),
        (#"{"op":"history","limit":1,"destination":"192.0.2.1"}"#,
         #""destination" applies to subscribe and route only"#),
        (#"{"op":"route","format":"prometheus"}"#, #""format" applies to metrics only"#),
        (#"{"op":"metrics","limit":1,"format":"json"}"#, #""format" must be openmetrics or prometheus"#),
        (#"{"op":"ping","since":1,"criteria":{}}"#, #""criteria" applies to status and subscribe only"#),
    ])
    func firstMisplacedOrInvalidFieldIsReported(line: String, message: String) {
        let error = Self.failure(line)
        #expect(error?.code == .badArgument)
        #expect(error?.message == message)
    }

    /// A field no op takes is refused, naming what the op takes: a typo never widens the
    /// question, and a client asking for a newer daemon's field learns that this one is older.
    @Test(arguments: [
        (#"{"op":"status","critera":{"requiredInterfaceType":"wifi"}}"#,
         #"unknown field "critera": status takes id and criteria"#),
        (#"{"op":"subscribe","id":"s","criteria":null,"expensive":false}"#,
         #"unknown field "expensive": subscribe takes id, criteria, destination and interface"#),
        (#"{"op":"history","limt":1}"#, #"unknown field "limt": history takes id, since and limit"#),
        (#"{"op":"ping","client":"pathctl","v":2}"#, #"unknown field "client": ping takes only id"#),
        (#"{"op":"unsubscribe","id":"x","ids":["x"]}"#, #"unknown field "ids": unsubscribe takes only id"#),
        (#"{"op":"interfaces","name":null}"#, #"unknown field "name": interfaces takes only id"#),
        (#"{"op":"reload","force":true}"#, #"unknown field "force": reload takes only id"#),
        (#"{"op":"reportConnectivity","report":{}}"#,
         #"unknown field "report": reportConnectivity takes id and connectivity"#),
        (#"{"op":"metrics","fromat":"prometheus"}"#, #"unknown field "fromat": metrics takes id and format"#),
        (#"{"op":"route","destination":"192.0.2.1","source":"192.0.2.2"}"#,
         #"unknown field "source": route takes id, destination and interface"#),
        (#"{"op":"status","Criteria":{}}"#, #"unknown field "Criteria": status takes id and criteria"#),
        (#"{"op":"status","":1}"#, #"unknown field "": status takes id and criteria"#),
    ])
    func unknownFieldsAreRefused(line: String, message: String) {
        let error = Self.failure(line)
        #expect(error?.code == .badArgument)
        #expect(error?.message == message)
    }

    @Test func unknownFieldRefusalEchoesTheId() {
        let error = Self.failure(#"{"op":"history","id":"h","limt":1}"#)
        #expect(error?.id == .string("h"))
    }

    /// The unknown field comes first, before a field of another op or a bad value; of
    /// several unknown fields, the first by name, so the message never depends on order.
    @Test(arguments: [
        (#"{"op":"ping","since":1,"zeta":2}"#, #"unknown field "zeta": ping takes only id"#),
        (#"{"op":"history","limit":-1,"next":true}"#, #"unknown field "next": history takes id, since and limit"#),
        (#"{"op":"status","zz":1,"aa":2,"mm":3}"#, #"unknown field "aa": status takes id and criteria"#),
        (#"{"mm":3,"op":"status","aa":2}"#, #"unknown field "aa": status takes id and criteria"#),
    ])
    func unknownFieldIsTheFirstProblemReported(line: String, message: String) {
        #expect(Self.failure(line)?.message == message)
    }

    /// The op's name and its id are the only fields besides the op's own; an unknown op
    /// is still `unknownOp` whatever else the line holds.
    @Test func unknownOpWinsOverUnknownFields() {
        #expect(Self.failure(#"{"op":"launch","critera":{}}"#)?.code == .unknownOp)
    }

    @Test(arguments: [
        Request(.status(.any)),
        Request(.ping, id: .string("p\"1\"\n")),
        Request(.ping, id: .null),
        Request(.unsubscribe, id: .integer(99)),
        Request(.subscribe(.path(Criteria(requiredInterfaceType: .wifi))), id: .double(0.25)),
        Request(.subscribe(.path(Criteria(prohibitedInterfaceTypes: [.cellular, .other, .wifi]))), id: .integer(-1)),
        Request(.status(Criteria(requiredInterfaceType: .cellular, prohibitedInterfaceTypes: [.loopback]))),
        Request(.status(Criteria(prohibitExpensivePaths: true))),
        Request(.status(Criteria(requiredNetwork: "home"))),
        Request(.subscribe(.path(Criteria(prohibitExpensivePaths: true, prohibitedNetworks: ["hotspot", "hotel"]))),
                id: .string("sync")),
        Request(.subscribe(.path(Criteria(prohibitedInterfaceTypes: [.wifi], prohibitExpensivePaths: true,
                                          prohibitConstrainedPaths: true))), id: .string("backup")),
    ])
    func encodedRoundTripsThroughParse(_ request: Request) throws {
        let line = request.encoded()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try Request.parse(line: line.dropLast()) == request)
    }

    @Test func encodedIsCompactAndSorted() {
        let criteria = Criteria(prohibitedInterfaceTypes: [.wifi, .cellular])
        let request = Request(.subscribe(.path(criteria)), id: .integer(1))
        #expect(String(decoding: request.encoded(), as: UTF8.self)
            == #"{"op":"subscribe","id":1,"criteria":{"prohibitedInterfaceTypes":["cellular","wifi"]}}"# + "\n")
        #expect(String(decoding: Request(.ping).encoded(), as: UTF8.self) == #"{"op":"ping"}"# + "\n")
    }

    /// A condition is written only when set, so a request without one is what every
    /// daemon of protocol 1 reads (an older daemon refuses the field it does not know).
    @Test func conditionsAreWrittenOnlyWhenSet() {
        let both = Request(.subscribe(.path(Criteria(prohibitExpensivePaths: true, prohibitConstrainedPaths: true))),
                           id: .string("b"))
        #expect(String(decoding: both.encoded(), as: UTF8.self) == #"{"op":"subscribe","id":"b","criteria":"#
            + #"{"prohibitExpensivePaths":true,"prohibitConstrainedPaths":true}}"# + "\n")
        #expect(String(decoding: Request(.status(Criteria(prohibitConstrainedPaths: true))).encoded(), as: UTF8.self)
            == #"{"op":"status","criteria":{"prohibitConstrainedPaths":true}}"# + "\n")
        #expect(String(decoding: Request(.status(.any)).encoded(), as: UTF8.self) == #"{"op":"status"}"# + "\n")
    }

    /// The network conditions too are written only when set, the prohibited ones sorted.
    @Test func networkConditionsAreWrittenOnlyWhenSet() {
        let sync = Request(.subscribe(.path(Criteria(requiredNetwork: "home", prohibitedNetworks: ["b", "a"]))),
                           id: .string("s"))
        #expect(String(decoding: sync.encoded(), as: UTF8.self) == #"{"op":"subscribe","id":"s","criteria":"#
            + #"{"requiredNetwork":"home","prohibitedNetworks":["a","b"]}}"# + "\n")
    }

    @Test func aMalformedNetworkSaysWhatItTakes() {
        let error = Self.failure(#"{"op":"status","criteria":{"requiredNetwork":"home wifi"}}"#)
        #expect(error?.code == .badArgument)
        #expect(error?.message == "requiredNetwork must name networks: a [Network] Name= (letters, digits, '.', "
            + "'_' and '-', starting with a letter or digit, at most 64 bytes) or an ID (32 hexadecimal digits)")
    }

    @Test func aConditionOfTheWrongTypeSaysWhatItTakes() {
        let error = Self.failure(#"{"op":"status","criteria":{"prohibitExpensivePaths":"yes"}}"#)
        #expect(error?.message == "prohibitExpensivePaths must be true or false")
    }
}

/// The error line a refused request gets, byte for byte, as the daemon builds it from the
/// parse error (Golden/error-unknown-field.jsonl): the documented `error` message.
@Suite("refused requests on the wire")
struct RefusedRequestGoldenTests {
    @Test func unknownFieldsGetTheGoldenErrorLines() throws {
        let requests = [#"{"op":"status","critera":{"requiredInterfaceType":"wifi"}}"#,
                        #"{"op":"history","limt":1,"id":"h"}"#]
        var encoded: [UInt8] = []
        for request in requests {
            do {
                let parsed = try Request.parse(line: Array(request.utf8))
                Issue.record("\(request) parsed as \(parsed)")
            } catch {
                encoded += ServerMessage.error(code: error.code, message: error.message, id: error.id).encoded()
            }
        }
        let golden = try Fixture.golden("error-unknown-field.jsonl")
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: golden, as: UTF8.self))
        for line in golden.split(separator: UInt8(ascii: "\n")) {
            guard case .error(.badArgument, let message, _) = try ServerMessage.decode(line: line) else {
                Issue.record("not a badArgument error: \(String(decoding: line, as: UTF8.self))")
                continue
            }
            #expect(message.hasPrefix("unknown field \""))
        }
    }
}
