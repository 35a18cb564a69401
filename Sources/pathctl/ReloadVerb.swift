import PathProtocol

/// `pathctl reload`: ask pathd to read its configuration again. Exit 0 when it took
/// the new configuration (warnings printed to stderr), 4 with pathd's message when it
/// kept the running one (`configInvalid`, errors with file:line) or refused
/// (`permissionDenied`: not root or pathd's user). `systemctl reload pathd` runs this.
enum ReloadVerb: Verb {
    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
        try converse(options, Request(.reload)) { message, line in
            if case .error = message {
                // converse fails with pathd's message after this; --json also prints the line.
                if options.json { echo(line) }
                return nil
            }
            guard case .reloaded(let warnings, _) = message else { return nil }
            if options.json {
                echo(line)
            } else {
                for warning in warnings { writeErrorLine("warning: \(warning)", level: .warning) }
            }
            return .success
        }
    }
}
