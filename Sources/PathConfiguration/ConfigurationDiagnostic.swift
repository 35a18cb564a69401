// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathSettings

/// One finding about a configuration file, always with the file and line it is about,
/// printed as `pathd.conf:12: Expensive= expects a boolean, got "maybe"`.
///
/// Warnings (unknown sections and keys, as systemd reports them) leave the file usable;
/// errors (bad syntax, bad values, unreadable files) make the whole configuration invalid.
public struct ConfigurationDiagnostic: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Hashable, Sendable {
        case warning
        case error
    }

    public var severity: Severity
    /// The file as the caller named it.
    public var file: String
    /// 1-based; 0 for a finding about the whole file (it cannot be read, it is too big).
    public var line: Int
    public var message: String

    public init(_ severity: Severity, file: String, line: Int, _ message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    }
}

extension Array where Element == ConfigurationDiagnostic {
    public var errors: [ConfigurationDiagnostic] { filter { $0.severity == .error } }
    public var warnings: [ConfigurationDiagnostic] { filter { $0.severity == .warning } }
    public var hasErrors: Bool { contains { $0.severity == .error } }
}
