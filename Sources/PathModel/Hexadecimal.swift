// SPDX-License-Identifier: Apache-2.0
/// Bytes as hexadecimal text and back: a SHA-256 digest in pathd.conf's `ExpectedSHA256=`,
/// in a connectivity report on the socket, and in escaped bytes of a printed body.
public enum Hexadecimal {
    /// Lowercase hexadecimal.
    public static func text(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.count)
        append(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Lowercase hexadecimal, written after `text`'s bytes.
    public static func append(_ bytes: [UInt8], to text: inout [UInt8]) {
        for byte in bytes {
            text.append(Self.digit(byte >> 4))
            text.append(Self.digit(byte & 0xF))
        }
    }

    /// A word's eight bytes, most significant first, as `append(_:to:)` writes them.
    public static func append(word: UInt64, to text: inout [UInt8]) {
        for shift in stride(from: 60, through: 0, by: -4) {
            text.append(Self.digit(UInt8(truncatingIfNeeded: word >> UInt64(shift)) & 0xF))
        }
    }

    /// The lowercase digit of a value below 16, as an ASCII byte.
    static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// The value of a hexadecimal digit (either case), an ASCII byte; nil for any other byte.
    public static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Bytes from hexadecimal digits (either case); nil for anything else or an odd count.
    public static func bytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

extension Unicode.Scalar {
    /// The scalar as Swift writes it escaped, `\u{1b}`: how a control character a file or
    /// a peer holds is shown on one line of text.
    public var escapedForDisplay: String { "\\u{\(String(value, radix: 16))}" }
}
