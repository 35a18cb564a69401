// SPDX-License-Identifier: Apache-2.0
/// Splits a byte stream into newline-terminated lines, with a bound on line length so a
/// peer that never sends a newline cannot make the daemon buffer without limit.
public struct LineFramer: Sendable {
    public enum Output: Equatable, Sendable {
        case line([UInt8])
        /// The current line passed the limit; framing is lost.
        case overflow
    }

    public let maximumLineLength: Int
    private var pending: [UInt8] = []

    public init(maximumLineLength: Int = maximumRequestLineLength) {
        self.maximumLineLength = maximumLineLength
    }

    /// Bytes received but not yet part of a complete line.
    public var bufferedByteCount: Int { pending.count }

    /// Feeds received bytes and hands each complete line to `line`, in order (a
    /// trailing "\r" removed; an empty line allocates nothing). Returns false, having
    /// discarded what was buffered, once a line passes the limit: framing is lost.
    ///
    /// Not generic, so that the daemon's calls run specialized code: a stream of
    /// empty lines costs a byte comparison each, not a call through a witness table.
    public mutating func push(_ bytes: UnsafeRawBufferPointer, _ line: ([UInt8]) -> Void) -> Bool {
        var start = 0
        var index = 0
        let count = bytes.count
        while index < count {
            if bytes[index] == UInt8(ascii: "\n") {
                let length = index - start
                if pending.count + length > maximumLineLength {
                    pending.removeAll()
                    return false
                }
                var end = index
                if pending.isEmpty {
                    if length > 0 && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    line(start == end ? [] : Array(UnsafeRawBufferPointer(rebasing: bytes[start..<end])))
                } else {
                    var whole = pending
                    whole.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                    pending.removeAll(keepingCapacity: true)
                    if whole.last == UInt8(ascii: "\r") { whole.removeLast() }
                    line(whole)
                }
                start = index + 1
            }
            index += 1
        }
        if pending.count + (count - start) > maximumLineLength {
            pending.removeAll()
            return false
        }
        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<count]))
        return true
    }

    /// `push` for any collection of bytes, collecting the outputs (for clients and tests).
    public mutating func push<Bytes: Collection>(_ bytes: Bytes) -> [Output] where Bytes.Element == UInt8 {
        var outputs: [Output] = []
        let fits = Array(bytes).withUnsafeBytes { raw in push(raw) { outputs.append(.line($0)) } }
        if !fits { outputs.append(.overflow) }
        return outputs
    }

    /// The end of the stream: what was buffered after the last newline, as a last line
    /// (a trailing "\r" removed), or nil when nothing was.
    public mutating func finish() -> [UInt8]? {
        guard !pending.isEmpty else { return nil }
        var last = pending
        pending = []
        if last.last == UInt8(ascii: "\r") { last.removeLast() }
        return last
    }
}
