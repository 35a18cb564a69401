import PathSocketClient
import PathProtocol

/// `pathctl status`: one request, one path, then exit.
enum StatusVerb {
    static let verb = Verb(name: "status", summary: "show the current path", takesCriteria: true, run: run)

    static func run(_ options: GlobalOptions) throws(CommandError) -> Int32 {
        try converse(options, Request(op: .status, criteria: options.criteria)) { message, line in
            guard case .path(let update, _) = message else { return nil }
            if options.json { echo(line) } else { writeOut(PathFormatting.statusReport(update)) }
            return 0
        }
    }
}
