// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Glibc
import PathSocketClient
import PathDaemon
import PathModel
import PathProtocol
import Testing

@Suite("bad input and limits", .blocking)
struct BadInputTests {
    @Test("malformed lines get errors and the connection stays usable", arguments: [
        ("not json", ErrorCode.badJSON),
        ("[1,2]", .badJSON),
        ("{\"op\":\"launch\"}", .unknownOp),
        ("{\"op\":5}", .badArgument),
        ("{}", .badArgument),
        ("{\"op\":\"subscribe\",\"criteria\":{\"requiredInterfaceType\":\"carrier-pigeon\"}}", .badArgument),
        ("{\"op\":\"status\"\u{0}}", .badJSON),
    ])
    func malformed(line: String, code: ErrorCode) throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        try client.write(Array((line + "\n").utf8))
        guard case .error(let received, let message, _) = try client.next() else {
            Issue.record("expected an error line for \(line)")
            return
        }
        #expect(received == code)
        #expect(!message.isEmpty)
        try client.write(Request(.ping, id: .string("after")).encoded())
        #expect(try client.next() == .pong(id: .string("after")))
    }

    @Test("a misspelt field gets badArgument naming it: no answer to another question, no subscription made")
    func unknownFieldIsRefused() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        try client.write(Array(#"{"op":"status","id":1,"critera":{"requiredInterfaceType":"wifi"}}"#.utf8) + [10])
        #expect(try client.next() == .error(code: .badArgument,
                                            message: #"unknown field "critera": status takes id and criteria"#,
                                            id: .integer(1)))
        try client.write(Array(#"{"op":"subscribe","id":"s","critera":{"requiredInterfaceType":"wifi"}}"#.utf8) + [10])
        guard case .error(.badArgument, _, .string("s")) = try client.next() else {
            Issue.record("expected badArgument for the subscription")
            return
        }
        try client.write(Request(.unsubscribe, id: .string("s")).encoded())
        guard case .error(.unknownSubscription, _, .string("s")) = try client.next() else {
            Issue.record("the refused subscription exists")
            return
        }
        try client.write(Array(#"{"op":"history","limt":1}"#.utf8) + [10])
        #expect(try client.next() == .error(code: .badArgument,
                                            message: #"unknown field "limt": history takes id, since and limit"#,
                                            id: nil))
        try client.write(Request(.ping, id: .string("after")).encoded())
        #expect(try client.next() == .pong(id: .string("after")))
    }

    @Test("blank lines get no reply: empty, spaces and tabs, CRLF, 100,000 of them, then a ping")
    func blankLines() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        let blanks = Array("\n \n\t\n \t \r\n\r\n".utf8)
        try client.write(Array([[UInt8]](repeating: blanks, count: 20_000).joined()))
        try client.write(Request(.ping, id: .integer(1)).encoded())
        #expect(try client.next() == .pong(id: .integer(1)))
    }

    @Test("a request split across many 1-byte writes is understood")
    func byteByByte() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        for byte in Request(.ping, id: .integer(42)).encoded() {
            try client.write([byte])
        }
        #expect(try client.next() == .pong(id: .integer(42)))
    }

    @Test("a line over the limit gets lineTooLong and the connection is closed")
    func lineTooLong() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        let other = try harness.connect()
        try client.write([UInt8](repeating: UInt8(ascii: "a"), count: maximumRequestLineLength + 10))
        guard case .error(.lineTooLong, _, _) = try client.next() else {
            Issue.record("expected lineTooLong")
            return
        }
        #expect(throws: RawClient.Closed.self) { try client.next() }
        // Everyone else is still served.
        try other.send(Request(.status(.any)))
        #expect(try other.nextPath().update.path.status == .satisfied)
    }

    @Test("requests before an over-long line are answered, then lineTooLong, then the connection is closed")
    func requestsBeforeLineTooLong() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try RawClient(path: harness.socketPath)
        // One write: the daemon reads the good lines and the start of the long one together.
        try client.write(Request(.ping, id: .integer(1)).encoded() + Request(.ping, id: .integer(2)).encoded()
            + [UInt8](repeating: UInt8(ascii: "a"), count: maximumRequestLineLength + 10))
        #expect(try client.next() == .pong(id: .integer(1)))
        #expect(try client.next() == .pong(id: .integer(2)))
        guard case .error(.lineTooLong, _, _) = try client.next() else {
            Issue.record("expected lineTooLong")
            return
        }
        #expect(throws: RawClient.Closed.self) { try client.next() }
    }

    @Test("a client over the limit gets tooManyClients and is closed")
    func tooManyClients() throws {
        let harness = try DaemonHarness(configuration: .daemon { $0.maximumClients = 2 })
        defer { harness.stop() }
        let first = try harness.connect()
        let second = try harness.connect()
        #expect {
            _ = try harness.connect()
        } throws: { error in
            // The client reports the daemon's reason, not a missing hello.
            guard case .refused(.tooManyClients, let message)? = (error as? PathClientError)?.kind else { return false }
            return message.contains("at most 2 clients") && !"\(error)".contains("did not greet")
        }
        try first.send(Request(.ping))
        #expect(try first.next() == .pong(id: nil))
        second.close()
        // A place is free again once the daemon has seen the close.
        try harness.waitForClients("one client after the close") { $0 == 1 }
        let third = try harness.connect()
        try third.send(Request(.ping))
        #expect(try third.next() == .pong(id: nil))
    }

    @Test("a subscriber that never reads neither blocks the daemon nor delays the others")
    func stuckReader() throws {
        let harness = try DaemonHarness(configuration: .daemon { $0.clientQueueLimitBytes = 64 * 1024 })
        defer { harness.stop() }
        let stuck = try harness.connect()
        try stuck.send(Request(.subscribe(.path(.any))))
        let (reader, first) = try harness.connectAndSubscribe()
        // In lockstep with the reader, so every line it gets is one it was due; the
        // stuck client's socket buffer fills after a few hundred lines.
        let last = try harness.flapCarrier(3000, readingOn: reader, after: first)
        // The stuck client's lines collapsed to the newest path: it is still connected
        // and, reading at last, ends on the same sequence as everyone else.
        #expect(harness.queue.sync { harness.service.clientCount } == 2)
        var newest = try stuck.nextPath().update
        while newest.sequence < last.sequence {
            newest = try stuck.nextPath().update
        }
        #expect(newest.sequence == last.sequence)
        #expect(newest.path == last.path)
    }
}

