// SPDX-License-Identifier: Apache-2.0
import PathModel
import SystemCalls

/// One line per event, at a level. The daemon writes to stderr; the client library's
/// in-process engine collects nothing by default (a library does not write to a
/// program's stderr).
public struct Logger: Sendable {
    public let threshold: LogLevel
    private let sink: @Sendable (LogLevel, String) -> Void

    /// Lines at `threshold` or more important go to `sink`.
    public init(threshold: LogLevel, sink: @escaping @Sendable (LogLevel, String) -> Void) {
        self.threshold = threshold
        self.sink = sink
    }

    /// Writes to `descriptor` (stderr by default) through write(2): Swift 6 rejects the
    /// `stderr` global as shared mutable state. With `journalPrefixes` each line carries
    /// an sd-daemon(3) priority prefix (`<4>`), so the journal records its level.
    public init(threshold: LogLevel = .standard, descriptor: FileDescriptor = .standardError, journalPrefixes: Bool) {
        self.init(threshold: threshold) { level, message in
            let line = (journalPrefixes ? "<\(level.priority)>" : "") + message + "\n"
            // A log line that cannot be written is lost; there is nowhere to report it.
            do { try descriptor.writeAll(line.utf8) } catch {}
        }
    }

    /// Drops every line.
    public static let discarding = Logger(threshold: .error) { _, _ in }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= threshold else { return }
        sink(level, message())
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    /// Whether stderr is the journal: `JOURNAL_STREAM` names the device and inode of the
    /// stream systemd connected, and it must be stderr's own (sd-daemon(3), systemd.exec(5)
    /// "$JOURNAL_STREAM"): a child whose stderr was redirected inherits the variable but
    /// not the stream, and must not print priority prefixes into a file.
    public static var stderrIsJournal: Bool {
        guard let value = Environment.value("JOURNAL_STREAM") else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        switch Result(catching: { () throws(Errno) in try FileDescriptor.standardError.status() }) {
        case .success(let status): return status.device == device && status.inode == inode
        case .failure: return false  // no stderr at all: certainly not the journal
        }
    }
}
