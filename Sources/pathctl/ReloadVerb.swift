import PathSocketClient
import PathProtocol

/// `pathctl reload`: ask pathd to read its configuration again. Exit 0 when it took
/// the new configuration (warnings printed to stderr), 1 with pathd's message when it
/// kept the running one (errors with file:line) or refused (not root or pathd's user).
enum ReloadVerb {
    static let verb = Verb(name: "reload", summary: "make pathd read its configuration again", run: run)

    static func run(_ options: GlobalOptions) throws(CommandError) -> Int32 {
        try converse(options, Request(op: .reload)) { message, line in
            switch message {
            case .reloaded(let warnings, _):
                if options.json {
                    echo(line)
                } else {
                    for warning in warnings { writeError("warning: \(warning)\n") }
                }
                return 0
            case .error:
                // converse fails with pathd's message after this; --json also prints the line.
                if options.json { echo(line) }
                return nil
            case .hello, .path, .resync, .pong, .unsubscribed, .interfaces:
                return nil
            }
        }
    }
}
