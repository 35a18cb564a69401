// SPDX-License-Identifier: Apache-2.0
/// Time spans as systemd writes them (systemd.time(7)): a number with a unit, or several
/// added up (`1min 30s`); a bare number is seconds. Units: `ms`/`msec`, `s`/`sec`/
/// `second(s)`, `m`/`min`/`minute(s)`, `h`/`hr`/`hour(s)`, `d`/`day(s)`. A number may
/// have a decimal fraction (`1.5s`). Kept to the millisecond.
public enum TimeSpan {
    private static let units: [(names: [String], milliseconds: Int64)] = [
        (["ms", "msec"], 1),
        (["s", "sec", "second", "seconds", ""], 1000),
        (["m", "min", "minute", "minutes"], 60_000),
        (["h", "hr", "hour", "hours"], 3_600_000),
        (["d", "day", "days"], 86_400_000),
    ]

    /// Longer spans than this (about 10 years) are refused rather than overflowed.
    static let maximumMilliseconds: Int64 = 10 * 366 * 86_400_000

    /// The span `text` names, or nil when it is not a time span.
    public static func parse(_ text: String) -> Duration? {
        var rest = Substring(text)
        var total: Int64 = 0
        var terms = 0
        func skipBlanks() { rest = rest.drop { $0 == " " || $0 == "\t" } }
        skipBlanks()
        while !rest.isEmpty {
            let whole = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(whole.count)
            var fraction = Substring("")
            if rest.first == "." {
                rest = rest.dropFirst()
                fraction = rest.prefix { $0.isASCII && $0.isNumber }
                rest = rest.dropFirst(fraction.count)
                guard !fraction.isEmpty else { return nil }
            }
            guard !whole.isEmpty || !fraction.isEmpty, whole.count <= 12, fraction.count <= 9 else { return nil }
            skipBlanks()
            let unit = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unit.count)
            guard let scale = units.first(where: { $0.names.contains(unit.lowercased()) })?.milliseconds else {
                return nil
            }
            let integral = (Int64(whole) ?? 0) * scale
            // The fraction scaled to milliseconds; finer digits are cut off.
            var fractional: Int64 = 0
            var divisor: Int64 = 1
            for digit in fraction {
                divisor *= 10
                fractional += Int64(digit.wholeNumberValue ?? 0) * scale / divisor
            }
            total += integral + fractional
            guard total <= maximumMilliseconds else { return nil }
            terms += 1
            skipBlanks()
        }
        return terms == 0 ? nil : .milliseconds(total)
    }

    /// `span` in the form `parse` reads and systemd prints: `5min`, `1min 30s`, `250ms`,
    /// `0` for nothing.
    public static func render(_ span: Duration) -> String {
        var rest = milliseconds(span)
        guard rest > 0 else { return "0" }
        var parts: [String] = []
        for (name, scale) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("min", 60_000), ("s", 1000), ("ms", 1)] {
            let count = rest / scale
            if count > 0 { parts.append("\(count)\(name)") }
            rest -= count * scale
        }
        return parts.joined(separator: " ")
    }

    /// Whole milliseconds in `span` (negative spans count as zero; saturated at Int64.max).
    public static func milliseconds(_ span: Duration) -> Int64 {
        max(0, span.wholeMilliseconds)
    }
}
