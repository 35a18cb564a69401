// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Writes one JSON object as bytes, members in the order they are added. Hand-written
/// because a path line is encoded once per change and then fanned out: JSONEncoder
/// takes about 20 µs a line, this about 5 µs (docs/KERNEL.md, "Toolchain and kernel facts"), and the member
/// order stays fixed for golden files.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    /// `capacity`: the bytes the line is expected to take (a path line about 400), so
    /// that it grows in one allocation.
    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
        needsComma.reserveCapacity(8)
    }

    /// Opens an object: an array element or the top level without a key, a member with one.
    public mutating func beginObject(_ key: String? = nil) {
        if let key { self.key(key) } else { separate() }
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    public mutating func beginArray(_ key: String) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    public mutating func member(_ key: String, _ value: String?) {
        self.key(key)
        if let value { appendString(value) } else { appendLiteral("null") }
    }

    /// An address as text (`IPAddress.appendText`), or null: written in place, since its
    /// characters need no escape.
    public mutating func member(_ key: String, _ value: IPAddress?) {
        self.key(key)
        if let value { appendPlain(value.appendText) } else { appendLiteral("null") }
    }

    /// A network ID as text (`NetworkID.appendText`), or null, written in place.
    public mutating func member(_ key: String, _ value: NetworkID?) {
        self.key(key)
        if let value { appendPlain(value.appendText) } else { appendLiteral("null") }
    }

    public mutating func member(_ key: String, _ value: Bool) {
        self.key(key)
        appendLiteral(value ? "true" : "false")
    }

    public mutating func member<Integer: BinaryInteger>(_ key: String, _ value: Integer) {
        self.key(key)
        appendInteger(value)
    }

    /// An integer, or null.
    public mutating func member<Integer: BinaryInteger>(_ key: String, _ value: Integer?) {
        self.key(key)
        if let value { appendInteger(value) } else { appendLiteral("null") }
    }

    public mutating func member(_ key: String, _ value: JSONValue) {
        self.key(key)
        append(value)
    }

    /// A duration in seconds with three decimals (`1796150000.123`): exact to the
    /// millisecond, whatever the double nearest to it prints as. Any duration, however
    /// large: the arithmetic is on Int128 attoseconds, which cannot overflow here.
    public mutating func member(_ key: String, seconds duration: Duration) {
        self.key(key)
        let milliseconds = duration.attoseconds / 1_000_000_000_000_000
        let magnitude = milliseconds.magnitude
        let fraction = String(magnitude % 1000)
        let sign = milliseconds < 0 ? "-" : ""
        let padding = String(repeating: "0", count: 3 - fraction.count)
        bytes.append(contentsOf: "\(sign)\(magnitude / 1000).\(padding)\(fraction)".utf8)
    }

    /// A whole value: an array element, or the top level (object members sorted by key).
    public mutating func value(_ value: JSONValue) {
        separate()
        append(value)
    }

    /// An array element that is a string.
    public mutating func element(_ value: String) {
        separate()
        appendString(value)
    }

    /// An address as an array element, written in place.
    public mutating func element(_ value: IPAddress) {
        separate()
        appendPlain(value.appendText)
    }

    /// Ends the line: the wire form is one object per line.
    public mutating func finishLine() -> [UInt8] {
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    private mutating func separate() {
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func key(_ key: String) {
        separate()
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func appendLiteral(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func append(_ value: JSONValue) {
        switch value {
        case .null: appendLiteral("null")
        case .bool(let flag): appendLiteral(flag ? "true" : "false")
        case .integer(let number): appendInteger(number)
        case .double(let number): bytes.append(contentsOf: String(number).utf8)
        case .string(let text): appendString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                append(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (offset, key) in members.keys.sorted().enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(key)
                bytes.append(UInt8(ascii: ":"))
                if let member = members[key] { append(member) }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// An integer in decimal (`DecimalDigits`): `String(value)` took the standard
    /// library's unspecialised generic conversion, a fifth of a path line's encoding.
    private mutating func appendInteger<Integer: BinaryInteger>(_ value: Integer) {
        guard let magnitude = UInt64(exactly: value.magnitude) else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        DecimalDigits.append(magnitude, to: &bytes)
    }

    /// A string whose characters need no escape, written by `write` after the quote.
    private mutating func appendPlain(_ write: (inout [UInt8]) -> Void) {
        bytes.append(UInt8(ascii: "\""))
        write(&bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (every key, names, addresses) need no escape: copied whole.
        var text = text
        let copied = text.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if !copied { appendEscaped(text) }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default:
                bytes.append(byte)
            }
        }
    }
}
