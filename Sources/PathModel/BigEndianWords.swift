// SPDX-License-Identifier: Apache-2.0
/// Bytes kept in place as big-endian words (`NetworkID`, `LinkLayerAddress`): a word
/// holds up to eight bytes from its most significant on, zeros after them, so that words
/// compare as their bytes do.
enum BigEndianWords {
    /// Up to eight bytes as one word, the first the most significant.
    static func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        precondition(bytes.count <= 8, "a word holds eight bytes")
        var word: UInt64 = 0
        for (position, byte) in bytes.enumerated() { word |= UInt64(byte) << UInt64(56 - 8 * position) }
        return word
    }

    /// The first `count` bytes of `word` (eight at most), the most significant first.
    static func bytes(of word: UInt64, count: Int = 8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * $0)) }
    }
}
