// SPDX-License-Identifier: Apache-2.0
/// Log verbosity, as `LogLevel=` and `--log-level` name it, and the level of one line.
/// Ordered by importance: `.error < .debug`, as syslog(3) numbers them.
public enum LogLevel: String, Hashable, Sendable, CaseIterable, Comparable {
    case error
    case warning
    case notice
    case info
    case debug

    /// What a program logs unless told otherwise (`LogLevel=`'s default, pathd-probe's).
    public static let standard = LogLevel.info

    /// The syslog(3) priority (`LOG_ERR` 3 … `LOG_DEBUG` 7), as sd-daemon(3) prefixes use.
    public var priority: Int {
        switch self {
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug: 7
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.priority < rhs.priority }
}
