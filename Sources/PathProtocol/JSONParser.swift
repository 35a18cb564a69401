// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Why a line is not JSON, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var problem: String
    /// Valid JSON, but an integer (no fraction, no exponent) outside Int64: pathd keeps
    /// integers exact, so it refuses these rather than round them to a double.
    public var isIntegerOutOfRange = false
    public var description: String { "\(problem) at byte \(offset)" }
}

/// A strict RFC 8259 parser over bytes: one value, surrounded only by white space.
/// Nesting is limited (`maximumDepth`) so that a line of brackets cannot exhaust the
/// stack.
public struct JSONParser {
    public static let maximumDepth = 32

    private let bytes: [UInt8]
    private var position = 0

    public static func parse<Bytes: Collection>(_ input: Bytes) throws(JSONParseError) -> JSONValue
        where Bytes.Element == UInt8 {
        var parser = JSONParser(bytes: Array(input))
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("trailing characters after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ problem: String) -> JSONParseError { JSONParseError(offset: position, problem: problem) }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw error("unexpected end of input") }
        for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] {
            throw error("invalid literal")
        }
        position += count
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a member name")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            guard members[key] == nil else { throw error("duplicate member \"\(key)\"") }
            members[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var hasEscape = false
        var run = position
        func validated(upTo end: Int) throws(JSONParseError) -> String {
            guard let text = String(validating: bytes[run..<end], as: UTF8.self) else {
                throw JSONParseError(offset: run, problem: "invalid UTF-8 in string")
            }
            return text
        }
        func flush(upTo end: Int) throws(JSONParseError) {
            guard run < end else { return }
            scalars.append(contentsOf: try validated(upTo: end).unicodeScalars)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                // Most strings have no escape: their bytes are the string, validated once.
                if !hasEscape {
                    let text = try validated(upTo: position)
                    position += 1
                    return text
                }
                try flush(upTo: position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character in string") }
            if byte == UInt8(ascii: "\\") {
                hasEscape = true
                try flush(upTo: position)
                position += 1
                scalars.append(try parseEscape())
                run = position
                continue
            }
            position += 1
        }
        throw error("unterminated string")
    }

    private mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
        guard position < bytes.count else { throw error("unterminated escape") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800..<0xDC00).contains(first) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate")
                }
                position += 2
                let second = try parseHex4()
                guard (0xDC00..<0xE000).contains(second) else { throw error("unpaired surrogate") }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw error("invalid escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("unpaired surrogate") }
            return scalar
        default:
            throw error("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Hexadecimal.value(of: bytes[position]) else { throw error("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        func digits() -> Int {
            let begin = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            return position - begin
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw error("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if digits() == 0 {
            throw error("invalid number")
        }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard digits() > 0 else { throw error("invalid number") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw error("invalid number") }
        }
        // The bytes are ASCII digits and signs, checked above.
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger {
            guard let value = Int64(text) else {
                throw JSONParseError(offset: start, problem: "integer out of the 64-bit range",
                                     isIntegerOutOfRange: true)
            }
            return .integer(value)
        }
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(offset: start, problem: "number out of range")
        }
        return .double(value)
    }
}
