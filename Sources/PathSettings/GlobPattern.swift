// SPDX-License-Identifier: Apache-2.0
import PathModel

/// A shell glob as fnmatch(3) without flags understands it, matched byte by byte:
/// `*` any run of bytes, `?` one byte, `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`) one byte
/// of (or not of) a set, `\x` the byte `x` itself. A `[` with no closing `]` is literal.
///
/// Matching costs at most pattern length × name length steps (one backtrack point, the
/// last `*`), never exponential time.
public struct GlobPattern: Hashable, Sendable, CustomStringConvertible {
    /// 256 bits, one per byte value.
    struct ByteSet: Hashable, Sendable {
        private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        mutating func insert(_ byte: UInt8) {
            let bit = UInt64(1) << UInt64(byte & 63)
            switch byte >> 6 {
            case 0: words.0 |= bit
            case 1: words.1 |= bit
            case 2: words.2 |= bit
            default: words.3 |= bit
            }
        }

        func contains(_ byte: UInt8) -> Bool {
            let bit = UInt64(1) << UInt64(byte & 63)
            switch byte >> 6 {
            case 0: return words.0 & bit != 0
            case 1: return words.1 & bit != 0
            case 2: return words.2 & bit != 0
            default: return words.3 & bit != 0
            }
        }

        static func == (lhs: ByteSet, rhs: ByteSet) -> Bool { lhs.words == rhs.words }
        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    enum Token: Hashable, Sendable {
        case byte(UInt8)
        case anyByte
        case anyRun
        case set(ByteSet, negated: Bool)
    }

    /// The pattern as written.
    public let text: String
    let tokens: [Token]

    public init(_ text: String) {
        self.text = text
        tokens = Self.compile(Array(text.utf8))
    }

    public var description: String { text }

    public func matches(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        var t = 0
        var b = 0
        // The last `*` seen and the name position it was tried at: on a mismatch, let
        // that star swallow one more byte. Earlier stars never need revisiting.
        var star: (token: Int, byte: Int)?
        while b < bytes.count {
            if t < tokens.count {
                switch tokens[t] {
                case .anyRun:
                    star = (t, b)
                    t += 1
                    continue
                case .anyByte:
                    t += 1
                    b += 1
                    continue
                case .byte(let expected) where expected == bytes[b]:
                    t += 1
                    b += 1
                    continue
                case .set(let set, let negated) where set.contains(bytes[b]) != negated:
                    t += 1
                    b += 1
                    continue
                default:
                    break
                }
            }
            guard let last = star else { return false }
            star = (last.token, last.byte + 1)
            t = last.token + 1
            b = last.byte + 1
        }
        while t < tokens.count, tokens[t] == .anyRun { t += 1 }
        return t == tokens.count
    }

    private static func compile(_ bytes: [UInt8]) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "*"):
                // `**` is `*`; collapsing keeps the matcher's backtracking single.
                if tokens.last != .anyRun { tokens.append(.anyRun) }
                index += 1
            case UInt8(ascii: "?"):
                tokens.append(.anyByte)
                index += 1
            case UInt8(ascii: "\\") where index + 1 < bytes.count:
                tokens.append(.byte(bytes[index + 1]))
                index += 2
            case UInt8(ascii: "["):
                if let (set, negated, next) = bracket(bytes, from: index) {
                    tokens.append(.set(set, negated: negated))
                    index = next
                } else {
                    tokens.append(.byte(byte))
                    index += 1
                }
            default:
                tokens.append(.byte(byte))
                index += 1
            }
        }
        return tokens
    }

    /// Parses `[...]` starting at `start` (the `[`); nil when it never closes.
    private static func bracket(_ bytes: [UInt8], from start: Int) -> (ByteSet, Bool, Int)? {
        var index = start + 1
        var negated = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "!") || bytes[index] == UInt8(ascii: "^") {
            negated = true
            index += 1
        }
        var set = ByteSet()
        var first = true
        while index < bytes.count {
            var low = bytes[index]
            if low == UInt8(ascii: "]") && !first { return (set, negated, index + 1) }
            first = false
            if low == UInt8(ascii: "\\"), index + 1 < bytes.count {
                index += 1
                low = bytes[index]
            }
            index += 1
            // A range `a-z`; a `-` last in the set (`[a-]`) is literal.
            if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] != UInt8(ascii: "]") {
                var high = bytes[index + 1]
                index += 2
                if high == UInt8(ascii: "\\"), index < bytes.count {
                    high = bytes[index]
                    index += 1
                }
                if low <= high {
                    for value in low...high { set.insert(value) }
                }
            } else {
                set.insert(low)
            }
        }
        return nil
    }
}
