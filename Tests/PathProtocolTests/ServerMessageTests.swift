// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures
import PathModel
import PathProtocol
import Testing

private let messages: [ServerMessage] = [
    .hello(protocolVersion: ProtocolVersion.current, daemonVersion: DaemonVersion.current, generation: .first),
    .hello(protocolVersion: 2, daemonVersion: "9.9.9-rc1 \"x\"", generation: Generation(rawValue: 1 << 40)),
    .path(Fixture.satisfied, id: nil),
    .path(Fixture.satisfied, id: .string("watch")),
    .path(Fixture.unsatisfied, id: .integer(17)),
    .path(Fixture.requiresConnection, id: .null),
    .path(PathUpdate(generation: .first, sequence: 0, path: Path(status: .unsatisfied)), id: nil),
    .resync(reason: "netlink receive buffer overrun (ENOBUFS)", generation: Generation(rawValue: 5), id: nil),
    .resync(reason: "", generation: Generation(rawValue: 6), id: .string("s")),
    .pong(id: nil),
    .pong(id: .null),
    .pong(id: .integer(-1)),
    .pong(id: .double(2.5)),
    .unsubscribed(id: .string("sub")),
    .unsubscribed(id: nil),
] + ErrorCode.allCases.map { code in
    .error(code: code, message: "\(code.rawValue): line 1\n\t\"bad\" é",
           id: code == .badJSON ? nil : .string(code.rawValue))
}

@Suite("ServerMessage")
struct ServerMessageTests {
    @Test(arguments: messages)
    func encodeDecodeRoundTrip(_ message: ServerMessage) throws {
        let line = message.encoded()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try ServerMessage.decode(line: line) == message)
        #expect(try ServerMessage.decode(line: line.dropLast()) == message)
    }

    @Test func helloLineFields() throws {
        let members = try Fixture.object(ServerMessage.hello(protocolVersion: 1, daemonVersion: "0.1.0",
                                                             generation: Generation(rawValue: 4)).encoded())
        #expect(members == ["type": .string("hello"), "protocol": .integer(1), "version": .string("0.1.0"),
                            "generation": .integer(4)])
    }

    @Test func messagesWithoutIdCarryNoIdMember() throws {
        #expect(try Fixture.object(ServerMessage.pong(id: nil).encoded())["id"] == nil)
        #expect(try Fixture.object(ServerMessage.pong(id: .null).encoded())["id"] == .null)
        #expect(ServerMessage.pong(id: nil).encoded() == Fixture.bytes(#"{"type":"pong"}"# + "\n"))
    }

    @Test func unknownTypeIsUnrecognizedAndKeptWhole() throws {
        let message = try ServerMessage.decode(line: Fixture.bytes(#"{"type":"telemetry","rate":5}"#))
        #expect(message
                == .unrecognized(type: "telemetry", .object(["type": .string("telemetry"), "rate": .integer(5)])))
        #expect(message.isUnrecognized)
    }

    @Test("values this version does not know are unrecognized, with their names", arguments: [
        (#"{"type":"error","code":"noSuchCode","message":"m"}"#,
         ServerMessage.error(code: .unrecognized("noSuchCode"), message: "m", id: nil)),
        (#"{"type":"path","generation":1,"sequence":1,"status":"maybe"}"#,
         ServerMessage.path(PathUpdate(generation: .first, sequence: 1, path: Path(status: .unrecognized("maybe"))),
                            id: nil)),
        (#"{"type":"path","generation":1,"sequence":1,"status":"unsatisfied","unsatisfiedReason":"gremlins"}"#,
         ServerMessage.path(PathUpdate(generation: .first, sequence: 1,
                                       path: Path(status: .unsatisfied,
                                                  unsatisfiedReason: .unrecognized("gremlins"))), id: nil)),
    ])
    func unknownValuesAreKept(_ text: String, _ expected: ServerMessage) throws {
        #expect(try ServerMessage.decode(line: Fixture.bytes(text)) == expected)
    }

    @Test(arguments: [
        "", "not json", "[]", #"{"kind":"path"}"#, #"{"type":5}"#, #"{"type":"hello","protocol":1}"#,
        #"{"type":"hello","protocol":"1","version":"x","generation":1}"#,
        #"{"type":"error","code":"badJSON"}"#,
        #"{"type":"path","generation":1,"status":"satisfied"}"#,
        #"{"type":"path","generation":1,"sequence":1,"status":"satisfied","interfaces":[{"name":"x","index":1}]}"#,
        #"{"type":"path","generation":1,"sequence":1,"status":"satisfied","interfaces":[{"name":"x","# +
        #""index":4294967296,"type":"other"}]}"#,
        #"{"type":"path","generation":1,"sequence":1,"status":"satisfied","gateways":["not-an-ip"]}"#,
        #"{"type":"resync","generation":1}"#,
    ])
    func malformedLinesAreErrors(_ text: String) {
        let error = #expect(throws: MessageDecodingError.self) { try ServerMessage.decode(line: Fixture.bytes(text)) }
        #expect(error.map { !$0.description.isEmpty } == true)
    }

    @Test func unknownFieldsAreIgnored() throws {
        let line = #"{"type":"pong","id":3,"addedInVersion2":{"deep":[1,2]}}"#
        #expect(try ServerMessage.decode(line: Fixture.bytes(line)) == .pong(id: .integer(3)))
    }

    @Test("a subscriber acts on path, resync and error lines and skips every other message")
    func subscriberRule() {
        let update = PathUpdate(generation: Generation(rawValue: 2), sequence: 3, path: Path(status: .satisfied))
        #expect(ServerMessage.path(update, id: .string("s")).forSubscriber == .path(update, id: .string("s")))
        #expect(ServerMessage.resync(reason: "overrun", generation: Generation(rawValue: 4), id: nil).forSubscriber
            == .resync(reason: "overrun", generation: Generation(rawValue: 4), id: nil))
        #expect(ServerMessage.error(code: .shuttingDown, message: "bye", id: nil).forSubscriber
            == .error(code: .shuttingDown, message: "bye", id: nil))
        let skipped: [ServerMessage] = [
            .hello(protocolVersion: 1, daemonVersion: "1", generation: .first), .pong(id: nil), .unsubscribed(id: nil),
            .reloaded(warnings: [], id: nil), .reported(id: nil), .unrecognized(type: "weather", .object([:])),
        ]
        for message in skipped { #expect(message.forSubscriber == nil, "\(message)") }
    }
}
