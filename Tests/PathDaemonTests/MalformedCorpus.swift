// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// A deterministic mix of lines no client should send, each with the error it must
/// get, and how it is written: whole, byte by byte, or split across many writes.
struct MalformedCorpus {
    enum Delivery { case batched, byteByByte, split }

    struct Entry {
        var bytes: [UInt8]
        var code: ErrorCode
        var delivery: Delivery
    }

    private(set) var entries: [Entry] = []

    /// SplitMix64: the same corpus on every run.
    private struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    init(count: Int) {
        var random = Random(state: 4)
        let badJSON = [#"{"op":"ping""#, "not json", #"{"op":}"#, "[1,2", #"{"op":"ping",}"#, "{'op':'ping'}",
                       #"{"op":"ping"} {"op":"ping"}"#, "[]", "42", #""op""#, String(repeating: "[", count: 100)]
        let wrongTypes = [#"{"op":5}"#, #"{"op":null}"#, #"{"op":"subscribe","criteria":5}"#,
                          #"{"op":"status","id":[1]}"#,
                          #"{"op":"subscribe","criteria":{"requiredInterfaceType":7}}"#, #"{"id":1}"#,
                          #"{"op":"ping","criteria":{}}"#, #"{"op":"subscribe","criteria":{"typo":1}}"#]
        for index in 0..<count {
            let delivery: Delivery = index % 97 == 0 ? .byteByByte : index % 31 == 0 ? .split : .batched
            let bytes: [UInt8]
            let code: ErrorCode
            switch index % 6 {
            case 0:
                bytes = Array(badJSON[Int(random.next() % UInt64(badJSON.count))].utf8)
                code = .badJSON
            case 1:
                bytes = Array(wrongTypes[Int(random.next() % UInt64(wrongTypes.count))].utf8)
                code = .badArgument
            case 2:
                bytes = Array(#"{"op":"launch-\#(index)","id":\#(index)}"#.utf8)
                code = .unknownOp
            case 3:
                // Binary garbage: never a newline, never only blanks (which are skipped).
                let length = 1 + Int(random.next() % 300)
                bytes = [0xFF] + (0..<length).map { _ in
                    let byte = UInt8(truncatingIfNeeded: random.next())
                    return byte == UInt8(ascii: "\n") ? 0 : byte
                }
                code = .badJSON
            case 4:
                // NUL bytes inside, around and instead of a request.
                let variants: [[UInt8]] = [Array(#"{"op":"ping"}"#.utf8) + [0], [0, 0, 0],
                                           Array(#"{"op":"pi"#.utf8) + [0] + Array(#"ng"}"#.utf8),
                                           [0] + Array(#"{"op":"ping"}"#.utf8)]
                bytes = variants[Int(random.next() % UInt64(variants.count))]
                code = .badJSON
            default:
                // Invalid UTF-8 in a string, and a lone surrogate escape.
                bytes = random.next() % 2 == 0 ? Array(#"{"op":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
                    : Array(#"{"op":"\ud800"}"#.utf8)
                code = .badJSON
            }
            entries.append(Entry(bytes: bytes + [UInt8(ascii: "\n")], code: code, delivery: delivery))
        }
    }

    var expectedCounts: [ErrorCode: Int] {
        entries.reduce(into: [:]) { $0[$1.code, default: 0] += 1 }
    }

    /// Writes every entry through `write`, batching whole lines into writes of about 4 KiB.
    func send(_ write: ([UInt8]) throws -> Void) throws {
        var batch: [UInt8] = []
        for entry in entries {
            switch entry.delivery {
            case .batched:
                batch += entry.bytes
                if batch.count >= 4096 {
                    try write(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            case .byteByByte, .split:
                if !batch.isEmpty { try write(batch) }
                batch.removeAll(keepingCapacity: true)
                let size = entry.delivery == .byteByByte ? 1 : max(1, entry.bytes.count / 7)
                var start = 0
                while start < entry.bytes.count {
                    try write(Array(entry.bytes[start..<min(start + size, entry.bytes.count)]))
                    start += size
                }
            }
        }
        if !batch.isEmpty { try write(batch) }
    }
}
