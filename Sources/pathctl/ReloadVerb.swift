import PathClient
import PathProtocol

/// `pathctl reload`: ask pathd to read its configuration again. Exit 0 when it took
/// the new configuration (warnings printed to stderr), 1 with pathd's message when it
/// kept the running one (errors with file:line) or refused (not root or pathd's user).
enum ReloadVerb {
    static let verb = Verb(name: "reload", summary: "make pathd read its configuration again", run: run)

    static func run(_ options: GlobalOptions) throws(CommandError) -> Int32 {
        let socketPath = try options.resolvedSocketPath()
        do throws(PathClientError) {
            let connection = try PathConnection(socketPath: socketPath)
            try connection.send(Request(op: .reload))
            while true {
                let (message, line) = try connection.nextWithLine()
                switch message {
                case .reloaded(let warnings, _):
                    if options.json {
                        writeOut(String(decoding: line, as: UTF8.self) + "\n")
                    } else {
                        for warning in warnings { writeError("warning: \(warning)\n") }
                    }
                    return 0
                case .error(let code, let text, _):
                    if options.json { writeOut(String(decoding: line, as: UTF8.self) + "\n") }
                    throw PathClientError("pathd: \(text) [\(code.rawValue)]")
                case .hello, .path, .resync, .pong, .unsubscribed, .interfaces:
                    continue
                }
            }
        } catch {
            throw CommandError.failure(error.description)
        }
    }
}
