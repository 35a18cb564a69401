import PathClient
import PathProtocol

/// `pathctl status`: one request, one path, then exit.
enum StatusVerb {
    static let verb = Verb(name: "status", summary: "show the current path", takesCriteria: true, run: run)

    static func run(_ options: GlobalOptions) throws(CommandError) -> Int32 {
        let socketPath = try options.resolvedSocketPath()
        do throws(PathClientError) {
            let connection = try PathConnection(socketPath: socketPath)
            try connection.send(Request(op: .status, criteria: options.criteria))
            while true {
                let (message, line) = try connection.nextWithLine()
                switch message {
                case .path(let update, _):
                    writeOut(options.json ? String(decoding: line, as: UTF8.self) + "\n" : PathFormatting.statusReport(update))
                    return 0
                case .error(let code, let text, _):
                    throw PathClientError("pathd refused: \(text) [\(code.rawValue)]")
                case .hello, .resync, .pong, .unsubscribed, .interfaces, .reloaded:
                    continue
                }
            }
        } catch {
            throw CommandError.failure(error.description)
        }
    }
}
