// SPDX-License-Identifier: Apache-2.0
/// A wall-clock moment in UTC to the second, as the protocol writes it: RFC 3339 with
/// `Z` (`2026-12-01T08:30:00Z`). A pure value: the clock is read by whoever makes one.
/// (`Timestamp` is the daemon's reading of both clocks; its `utc` is one of these.)
public struct UTCTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSinceEpoch: Int64

    public init(secondsSinceEpoch: Int64) {
        self.secondsSinceEpoch = secondsSinceEpoch
    }

    public static func < (lhs: UTCTime, rhs: UTCTime) -> Bool { lhs.secondsSinceEpoch < rhs.secondsSinceEpoch }

    /// `YYYY-MM-DDTHH:MM:SSZ`; years 0 to 9999.
    public var description: String {
        let (days, seconds) = CivilCalendar.split(seconds: secondsSinceEpoch)
        let (year, month, day) = CivilCalendar.date(days: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
            + "-\(two(month))-\(two(day))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
    }

    /// Reads exactly the form `description` writes; nil for anything else.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              bytes[19] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              let days = CivilCalendar.daysIfValid(year: year, month: month, day: day),
              hour < 24, minute < 60, second < 60 else { return nil }
        secondsSinceEpoch = days * 86_400 + hour * 3600 + minute * 60 + second
    }
}
