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

    /// Feeds received bytes; returns the complete lines in order (a trailing "\r" is
    /// removed), or `.overflow` as the last output once a line is too long.
    public mutating func push<Bytes: Collection>(_ bytes: Bytes) -> [Output] where Bytes.Element == UInt8 {
        var outputs: [Output] = []
        var chunk = bytes[...]
        while let newline = chunk.firstIndex(of: UInt8(ascii: "\n")) {
            let part = chunk[chunk.startIndex..<newline]
            if pending.count + part.count > maximumLineLength {
                pending.removeAll()
                outputs.append(.overflow)
                return outputs
            }
            var line = pending
            line.append(contentsOf: part)
            pending.removeAll(keepingCapacity: true)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            outputs.append(.line(line))
            chunk = chunk[chunk.index(after: newline)...]
        }
        if pending.count + chunk.count > maximumLineLength {
            pending.removeAll()
            outputs.append(.overflow)
            return outputs
        }
        pending.append(contentsOf: chunk)
        return outputs
    }
}
