// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathProtocol

/// `pathctl reload`: ask pathd to read its configuration again. Exit 0 when it took
/// the new configuration (warnings printed to stderr), 4 with pathd's message when it
/// kept the running one (`configInvalid`, errors with file:line) or refused
/// (`permissionDenied`: not root or pathd's user). `systemctl reload pathd` runs this.
struct ReloadVerb: PlainVerb, Equatable {
    static let command = CommandSpec<any Verb.Type>(
        "reload", summary: "make pathd read its configuration again", action: Self.self)

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        try converse(global, Request(.reload)) { message, line in
            if case .error = message {
                // converse fails with pathd's message after this; --json also prints the line.
                if global.json { echo(line) }
                return nil
            }
            guard case .reloaded(let warnings, _) = message else { return nil }
            if global.json {
                echo(line)
            } else {
                for warning in warnings { writeErrorLine("warning: \(warning)", level: .warning) }
            }
            return .success
        }
    }
}
