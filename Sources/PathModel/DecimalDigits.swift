// SPDX-License-Identifier: Apache-2.0
/// An unsigned integer's decimal digits written into bytes, with no string: the JSON
/// writer's integers and an IPv4 address's parts. `String(value)` takes the standard
/// library's generic conversion, which is not specialised, and allocates a string each time.
public enum DecimalDigits {
    /// Appends `value`'s digits (no sign, no leading zero) to `bytes`.
    public static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var remaining = value
        for index in stride(from: start + count - 1, through: start, by: -1) {
            bytes[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
    }
}
