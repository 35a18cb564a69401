import PathSocketClient
import PathProtocol

/// `pathctl monitor`: subscribe and print one line per change until interrupted.
enum MonitorVerb {
    static let verb = Verb(name: "monitor", summary: "print the path and every change until interrupted",
                           takesCriteria: true, run: run)

    static func run(_ options: GlobalOptions) throws(CommandError) -> Int32 {
        try converse(options, Request(op: .subscribe, criteria: options.criteria)) { message, line in
            switch message {
            case .path(let update, _):
                if options.json { echo(line) } else { writeOut(PathFormatting.monitorLine(update)) }
            case .resync(let reason, let generation, _):
                if options.json {
                    echo(line)
                } else {
                    writeOut("\(PathFormatting.timestamp()) resync (generation \(generation)): \(reason)\n")
                }
            case .error, .hello, .pong, .unsubscribed, .interfaces, .reloaded:
                break
            }
            return nil
        }
    }
}
