// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathSettings

/// A configuration file in the INI style of systemd unit files, split into sections
/// and assignments but not yet interpreted. `INIParser` makes one.
public struct INIDocument: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var key: String
        public var value: String
        /// 1-based line of the key (the first line of a continued assignment).
        public var line: Int

        public init(key: String, value: String, line: Int) {
            self.key = key
            self.value = value
            self.line = line
        }
    }

    public struct Section: Hashable, Sendable {
        public var name: String
        public var line: Int
        public var entries: [Entry]

        public init(name: String, line: Int, entries: [Entry]) {
            self.name = name
            self.line = line
            self.entries = entries
        }
    }

    public var file: String
    public var sections: [Section]
    /// Syntax findings, at most `DiagnosticLog.limit` plus one summary.
    public var diagnostics: [ConfigurationDiagnostic]
}

/// Collects a file's diagnostics, keeping the first `limit` and counting the rest, so
/// that hostile input (a million bad lines) costs memory bounded by the limit.
struct DiagnosticLog {
    static let limit = 64

    let file: String
    private(set) var entries: [ConfigurationDiagnostic] = []
    private var suppressedWarnings = 0
    private var suppressedErrors = 0

    init(file: String) {
        self.file = file
    }

    mutating func add(_ severity: ConfigurationDiagnostic.Severity, line: Int, _ message: String) {
        guard entries.count < Self.limit else {
            if severity == .error { suppressedErrors += 1 } else { suppressedWarnings += 1 }
            return
        }
        entries.append(ConfigurationDiagnostic(severity, file: file, line: line, message))
    }

    mutating func error(line: Int, _ message: String) { add(.error, line: line, message) }
    mutating func warning(line: Int, _ message: String) { add(.warning, line: line, message) }

    /// The kept diagnostics and, if any were dropped, one line saying how many.
    var finished: [ConfigurationDiagnostic] {
        let suppressed = suppressedErrors + suppressedWarnings
        guard suppressed > 0 else { return entries }
        let summary = ConfigurationDiagnostic(
            suppressedErrors > 0 ? .error : .warning, file: file, line: 0,
            "\(suppressedErrors) more errors and \(suppressedWarnings) more warnings not shown")
        return entries + [summary]
    }
}
