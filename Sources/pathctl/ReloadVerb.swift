import PathProtocol

/// `pathctl reload`: ask pathd to read its configuration again. Exit 0 when it took
/// the new configuration (warnings printed to stderr), 4 with pathd's message when it
/// kept the running one (`configInvalid`, errors with file:line) or refused
/// (`permissionDenied`: not root or pathd's user). `systemctl reload pathd` runs this.
enum ReloadVerb: Verb {
    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
        try converse(options, Request(op: .reload)) { message, line in
            switch message {
            case .reloaded(let warnings, _):
                if options.json {
                    echo(line)
                } else {
                    for warning in warnings { writeError("warning: \(warning)\n") }
                }
                return .success
            case .error:
                // converse fails with pathd's message after this; --json also prints the line.
                if options.json { echo(line) }
                return nil
            case .hello, .path, .resync, .pong, .unsubscribed, .interfaces, .reported, .metrics, .history, .route, .unrecognized:
                return nil
            }
        }
    }
}
