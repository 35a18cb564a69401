// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

@Suite("metrics and history requests")
struct MetricsHistoryRequestTests {
    private static func parse(_ text: String) throws(RequestError) -> Request {
        try Request.parse(line: Array(text.utf8))
    }

    @Test("format, since and limit are read, and written back the same")
    func options() throws {
        let metrics = try Self.parse(#"{"op":"metrics","format":"prometheus"}"#)
        #expect(metrics == Request(.metrics(format: .prometheus)))
        let history = try Self.parse(#"{"op":"history","since":1796150000.25,"limit":5,"id":"h"}"#)
        #expect(history == Request(.history(since: .milliseconds(1_796_150_000_250), limit: 5), id: .string("h")))
        #expect(try Self.parse(#"{"op":"history","since":1796150000}"#).op
                == .history(since: .seconds(1_796_150_000), limit: nil))
        for request in [metrics, history] {
            #expect(try Request.parse(line: request.encoded().dropLast()) == request)
        }
        #expect(try Self.parse(#"{"op":"metrics","format":null}"#).op == .metrics(format: nil))
    }

    @Test("a since at the ends of the integers is read and written without trapping; within ±9e12 s it round-trips")
    func extremeSince() throws {
        for seconds in [Int64.max, Int64.min] {
            let request = try Self.parse(#"{"op":"history","since":\#(seconds)}"#)
            #expect(request.op == .history(since: .seconds(seconds), limit: nil))
            #expect(String(decoding: request.encoded(), as: UTF8.self)
                    == #"{"op":"history","since":\#(seconds).000}"# + "\n")
        }
        for seconds in [Int64(-9_000_000_000_000), 0, 9_000_000_000_000] {
            let request = try Self.parse(#"{"op":"history","since":\#(seconds).0}"#)
            #expect(request.op == .history(since: .seconds(seconds), limit: nil))
            #expect(try Request.parse(line: request.encoded().dropLast()) == request)
        }
    }

    @Test("each option only with its request, and only with a value of its type", arguments: [
        #"{"op":"status","format":"prometheus"}"#, #"{"op":"metrics","format":"json"}"#,
        #"{"op":"metrics","format":1}"#,
        #"{"op":"metrics","since":1}"#, #"{"op":"history","since":"yesterday"}"#, #"{"op":"history","limit":-1}"#,
        #"{"op":"history","limit":1.5}"#, #"{"op":"ping","limit":1}"#, #"{"op":"history","since":1e300}"#,
        // Past about 292,000 years a double has no microsecond count in an Int64: refused, not trapped on.
        #"{"op":"history","since":1e13}"#, #"{"op":"history","since":-1e14}"#, #"{"op":"history","since":9.3e12}"#,
    ])
    func badOptions(line: String) {
        #expect {
            try Self.parse(line)
        } throws: { error in
            (error as? RequestError)?.code == .badArgument
        }
    }

    @Test("a history file line round-trips, a torn or foreign one is an error, a newer pathd's event is kept by name")
    func historyLines() throws {
        let entry = HistoryEntry(time: Timestamp(wall: .milliseconds(1_796_150_000_123),
                                                 monotonic: .milliseconds(42_500)),
                                 event: .change(PathChange(status: .unsatisfied, unsatisfiedReason: .noRoute,
                                                           generation: Generation(rawValue: 2), sequence: 9)))
        let line = entry.encodedLine()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(try HistoryEntry.decode(line: line.dropLast()) == entry)
        #expect(throws: MessageDecodingError.self) { try HistoryEntry.decode(line: line.dropLast(20)) }
        #expect(try HistoryEntry.decode(line: Array(#"{"event":"rebooted","wallTime":1,"monotonicTime":1,"x":2}"#.utf8))
                == HistoryEntry(time: Timestamp(wall: .seconds(1), monotonic: .seconds(1)),
                                event: .unrecognized("rebooted")))
        #expect(throws: MessageDecodingError.self) {
            try HistoryEntry.decode(line: Array(#"{"wallTime":1,"monotonicTime":1}"#.utf8))
        }
        #expect(throws: MessageDecodingError.self) {
            try HistoryEntry.decode(
                line: Array(#"{"event":"change","wallTime":1,"monotonicTime":1,"status":"online"}"#.utf8))
        }
    }

    @Test("a watched route's entry names its host and keeps its reason in words, byte for byte")
    func routeEntries() throws {
        var change = PathChange(status: .unsatisfied, unsatisfiedReason: .noRoute, generation: Generation(rawValue: 2),
                                sequence: 3)
        change.recordedExplanation = "no route to 192.0.2.10"
        let entry = HistoryEntry(time: Timestamp(wall: .seconds(1_796_150_000), monotonic: .seconds(42)),
                                 event: .route(host: "db.example.org", change))
        let line = entry.encodedLine()
        #expect(String(decoding: line, as: UTF8.self)
            == #"{"event":"route","wallTime":1796150000.000,"monotonicTime":42.000,"#
            + #""host":"db.example.org","status":"unsatisfied","unsatisfiedReason":"noRoute","reasonInterface":null,"#
            + #""reason":"no route to 192.0.2.10","interfaces":[],"generation":2,"sequence":3}"# + "\n")
        #expect(try HistoryEntry.decode(line: line.dropLast()) == entry)
        #expect(throws: MessageDecodingError.self) {
            // No host.
            try HistoryEntry.decode(line: Array(#"{"event":"route","wallTime":1,"monotonicTime":1,"#.utf8)
                + Array(#""status":"satisfied","generation":1,"sequence":1}"#.utf8))
        }
    }
}
