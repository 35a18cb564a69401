import PathClient
import PathProtocol

/// `pathctl monitor`: subscribe and print one line per change until interrupted.
enum MonitorVerb {
    static let verb = Verb(name: "monitor", summary: "print the path and every change until interrupted",
                           takesCriteria: true, run: run)

    static func run(_ options: GlobalOptions) throws(CommandError) -> Int32 {
        let socketPath = try options.resolvedSocketPath()
        do throws(PathClientError) {
            let connection = try PathConnection(socketPath: socketPath)
            try connection.send(Request(op: .subscribe, criteria: options.criteria))
            while true {
                let (message, line) = try connection.nextWithLine()
                switch message {
                case .path(let update, _):
                    writeOut(options.json ? String(decoding: line, as: UTF8.self) + "\n" : PathFormatting.monitorLine(update))
                case .resync(let reason, let generation, _):
                    writeOut(options.json ? String(decoding: line, as: UTF8.self) + "\n"
                             : "\(PathFormatting.timestamp()) resync (generation \(generation)): \(reason)\n")
                case .error(let code, let text, _):
                    throw PathClientError("pathd: \(text) [\(code.rawValue)]")
                case .hello, .pong, .unsubscribed, .interfaces, .reloaded:
                    continue
                }
            }
        } catch {
            throw CommandError.failure(error.description)
        }
    }
}
