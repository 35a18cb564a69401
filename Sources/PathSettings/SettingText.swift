// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The words and numbers a setting's value is written in, as systemd writes them
/// (systemd.syntax(7)): booleans and byte sizes. Each list is written once here, and
/// the parsers, the keys' ranges and messages, and pathd.conf(5) (a test holds the page
/// to it) read it.
public enum SettingText {
    /// systemd's booleans, each word with its value, in the order pathd.conf(5) lists
    /// them; the first of each value is how pathd prints it (`yes`, `no`).
    public static let booleans: [(word: String, value: Bool)] = [
        ("yes", true), ("no", false), ("true", true), ("false", false), ("on", true), ("off", false),
        ("1", true), ("0", false),
    ]

    /// "yes, no, true, false, on, off, 1, 0": what a boolean key takes, for its range and messages.
    public static let booleanWords = booleans.map(\.word).joined(separator: ", ")

    /// A boolean written in any case; nil for any other word.
    public static func boolean(_ text: String) -> Bool? {
        let word = text.lowercased()
        return booleans.first { $0.word == word }?.value
    }

    /// How pathd prints a boolean: the first word of its value.
    public static func word(for value: Bool) -> String {
        booleans.first { $0.value == value }?.word ?? String(value)
    }

    /// The suffixes of a size (powers of 1024, as systemd's), largest first.
    static let sizeSuffixes: [(suffix: Character, shift: Int)] = [("G", 30), ("M", 20), ("K", 10)]

    /// A byte count with an optional K, M or G suffix, in either case.
    public static func size(_ text: String) -> Int? {
        guard let last = text.last else { return nil }
        let shift = sizeSuffixes.first { $0.suffix == Character(last.uppercased()) }?.shift
        let digits = shift == nil ? Substring(text) : text.dropLast()
        guard digits.count <= 12, let number = Int(digits), number >= 0 else { return nil }
        return number << (shift ?? 0)
    }

    /// A byte count in the largest of G, M, K that divides it (`256K`), as `size` reads it.
    public static func documentedSize(_ bytes: Int) -> String {
        for (suffix, shift) in sizeSuffixes where bytes > 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(suffix)"
        }
        return String(bytes)
    }

    /// Text of a value or line as it may appear in a message: control characters escaped,
    /// cut to 64 characters, in double quotes.
    public static func quoted<Text: StringProtocol>(_ text: Text) -> String {
        var result = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == 64 {
                result += "…"
                break
            }
            count += 1
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += scalar.escapedForDisplay
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
