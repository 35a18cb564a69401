// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

/// A history line comes from a file anyone with write access to the state directory (or
/// a disk error) may have changed: every number in it is range-checked where it is read,
/// so that nothing later (a duration, a date, the encoder) can overflow or trap on it.
@Suite("hostile numbers in history entries")
struct HostileHistoryNumberTests {
    static func line(wall: String = "1796150000", monotonic: String = "100", event: String = "started",
                     extra: String = "") -> [UInt8] {
        Array(#"{"event":"\#(event)","wallTime":\#(wall),"monotonicTime":\#(monotonic)\#(extra)}"#.utf8)
    }

    /// Numbers a file may hold that no clock of 1970…9999 or since boot gives.
    static let hostileTimes = [
        "1e13", "-1e13", "1e300", "-1e300", "1.7976931348623157e308", "-1.7976931348623157e308",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616",
        "9223372036854.775807", "9223372036855", "1e19", "1e20", "253402300800", "253402300800.0005", "-1",
        "-0.001", "-0.0006", "1e-400e", "2e9999",
    ]

    @Test("a wall time that is out of range, not finite or too large for a duration is an error, never a trap",
          arguments: hostileTimes)
    func hostileWallTime(number: String) {
        #expect(throws: MessageDecodingError.self) { try HistoryEntry.decode(line: Self.line(wall: number)) }
        for event in ["stopped", "change", "rebooted"] {
            let extra = #","status":"satisfied","interfaces":[],"generation":1,"sequence":1"#
            #expect(throws: MessageDecodingError.self) {
                try HistoryEntry.decode(line: Self.line(wall: number, event: event, extra: extra))
            }
        }
    }

    @Test("a monotonic time that is negative, out of range or not finite is an error, never a trap",
          arguments: hostileTimes)
    func hostileMonotonicTime(number: String) {
        #expect(throws: MessageDecodingError.self) { try HistoryEntry.decode(line: Self.line(monotonic: number)) }
    }

    @Test("a generation or sequence that is negative or not an integer is an error", arguments: [
        "-1", "-9223372036854775808", "1e300", "1.5", "18446744073709551616", "\"1\"", "null",
    ])
    func hostileCounters(number: String) {
        for (generation, sequence) in [(number, "1"), ("1", number)] {
            let extra = #","status":"satisfied","interfaces":[],"generation":\#(generation),"sequence":\#(sequence)"#
            #expect(throws: MessageDecodingError.self) {
                try HistoryEntry.decode(line: Self.line(event: "change", extra: extra))
            }
        }
    }

    @Test("the range's ends are read, and written back the same")
    func boundaries() throws {
        for (wall, monotonic) in [("0", "0"), ("253402300799.999", "253402300799.999"), ("1796150000.5", "0.001"),
                                  ("253402300799", "0")] {
            let entry = try HistoryEntry.decode(line: Self.line(wall: wall, monotonic: monotonic))
            #expect(entry.time.isPlausible)
            try Self.expectRoundTrip(entry, wall)
        }
        let last = try HistoryEntry.decode(line: Self.line(wall: "253402300799.999"))
        #expect(last.time.utc.description.hasPrefix("9999-12-31T23:59:59"), "\(last.time.utc)")
    }

    /// Written and read back, the entry is the same to the millisecond, the file's
    /// precision (give or take a double's error near year 9999: some microseconds).
    static func expectRoundTrip(_ entry: HistoryEntry, _ text: String) throws {
        let back = try HistoryEntry.decode(line: entry.encodedLine().dropLast())
        #expect(back.eventName == entry.eventName && back.time.isPlausible, "\(text)")
        func distance(_ a: Duration, _ b: Duration) -> Duration { max(a - b, b - a) }
        #expect(distance(back.time.wall, entry.time.wall) < .milliseconds(2)
                && distance(back.time.monotonic,
                            entry.time.monotonic) < .milliseconds(2), "\(text): \(entry) → \(back)")
    }

    /// SplitMix64: the same numbers on every run, so a failure can be replayed.
    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("""
        100,000 random doubles and integers as times: each line is refused, or read as a plausible time that \
        round-trips
        """)
    func randomNumbers() throws {
        var random = SplitMix(state: 0x5EED)
        var accepted = 0
        for round in 0..<100_000 {
            let bits = random.next()
            let text: String
            switch round % 3 {
            case 0: text = String(Double(bitPattern: bits))  // every exponent, NaN and infinities included
            case 1: text = String(Int64(bitPattern: bits))
            default: text = String(Double(Int64(bitPattern: bits) >> (bits & 63)) / 1000)  // near the range's ends
            }
            for line in [Self.line(wall: text), Self.line(monotonic: text)] {
                let entry: HistoryEntry
                do {
                    entry = try HistoryEntry.decode(line: line)
                } catch {
                    continue
                }
                accepted += 1
                #expect(entry.time.isPlausible, "\(text)")
                try Self.expectRoundTrip(entry, text)
            }
        }
        #expect(accepted > 1000, "the generator should reach the valid range too")
    }

    @Test("the encoder writes any duration without trapping, to the millisecond")
    func encoderExtremes() {
        let cases: [(Duration, String)] = [
            (.seconds(Int64.max), "9223372036854775807.000"), (.seconds(Int64.min), "-9223372036854775808.000"),
            (.milliseconds(Int64.max), "9223372036854775.807"), (.milliseconds(Int64.min), "-9223372036854775.808"),
            (.seconds(Int64.max) + .seconds(Int64.max), "18446744073709551614.000"),
            (.milliseconds(-1), "-0.001"), (.milliseconds(-1500), "-1.500"), (.zero, "0.000"),
            (.nanoseconds(999_999), "0.000"),
        ]
        for (duration, text) in cases {
            var writer = JSONWriter()
            writer.beginObject()
            writer.member("t", seconds: duration)
            writer.endObject()
            #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"t":\#(text)}"#)
        }
    }
}
