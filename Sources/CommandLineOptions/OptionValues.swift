// SPDX-License-Identifier: Apache-2.0
/// The values options take, read the same way by every option that takes them.
public enum OptionValue {
    /// A number of seconds in plain decimal: digits with an optional fraction (`30`,
    /// `0.5`). No sign, exponent, hexadecimal, `inf` or `nan`, which `Double(_:)` would
    /// all accept. Kept to the millisecond; more fraction digits are cut off.
    public static func seconds(_ text: String, for option: String) throws(UsageError) -> Duration {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        func isDigits(_ part: Substring) -> Bool { part.allSatisfy { ("0"..."9").contains($0) } }
        guard !whole.isEmpty, isDigits(whole), isDigits(fraction), parts.count == 1 || !fraction.isEmpty else {
            throw UsageError("\(option) expects a decimal number of seconds, got \"\(text)\"")
        }
        let maximum = Int64.max / 1000
        // Int64(_:) is nil past Int64.max: that is too long as well.
        guard let seconds = Int64(whole), seconds <= maximum else {
            throw UsageError("\(option) \(text) is too long (at most \(maximum) seconds)")
        }
        let milliseconds = Int64(String((fraction + "000").prefix(3)))!
        // The maximum itself with a fraction (`9223372036854775.808`) passes Int64.max.
        let (total, overflow) = (seconds * 1000).addingReportingOverflow(milliseconds)
        guard !overflow else { throw UsageError("\(option) \(text) is too long (at most \(maximum) seconds)") }
        return .milliseconds(total)
    }

    /// One of a fixed set of names, compared without regard to case; `names` pairs each
    /// accepted spelling with its value.
    public static func choice<Value>(_ text: String, for option: String,
                                     among names: [(name: String, value: Value)]) throws(UsageError) -> Value {
        if let match = names.first(where: { $0.name.lowercased() == text.lowercased() }) {
            return match.value
        }
        let known = names.map(\.name).joined(separator: ", ")
        throw UsageError("\(option) expects one of \(known), got \"\(text)\"")
    }
}
