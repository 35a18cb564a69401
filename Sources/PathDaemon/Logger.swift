import CLinux
import Glibc

/// Writes one line per event to stderr, through write(2) (Swift 6 rejects the `stderr`
/// global as shared mutable state). Under systemd (JOURNAL_STREAM set) each line
/// carries an `sd-daemon(3)` priority prefix so the journal records its level.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case error = 3
        case warning = 4
        case notice = 5
        case info = 6
        case debug = 7

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let threshold: Level
    private let journalPrefixes: Bool
    private let descriptor: Int32

    public init(threshold: Level = .info, descriptor: Int32 = 2, journalPrefixes: Bool) {
        self.threshold = threshold
        self.descriptor = descriptor
        self.journalPrefixes = journalPrefixes
    }

    public func log(_ level: Level, _ message: String) {
        guard level <= threshold else { return }
        let line = (journalPrefixes ? "<\(level.rawValue)>" : "") + message + "\n"
        var bytes = Array(line.utf8)[...]
        // A log line that cannot be written is lost; there is nowhere to report it.
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }

    public func error(_ message: String) { log(.error, message) }
    public func warning(_ message: String) { log(.warning, message) }
    public func notice(_ message: String) { log(.notice, message) }
    public func info(_ message: String) { log(.info, message) }
    public func debug(_ message: String) { log(.debug, message) }
}
