import Glibc
import PathProtocol
import SystemCalls

/// `pathctl status`: one request, one path, then exit: 0, or with `--check` (or a
/// requirement such as `--ipv6`) 1 when the path is not satisfied or falls short.
enum StatusVerb: Verb {
    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
        try converse(options, Request(.status(options.criteria))) { message, line in
            guard case .path(let update, _) = message else { return nil }
            if options.json {
                echo(line)
            } else {
                let colour = ColourPolicy.isEnabled(noColorOption: options.noColor, json: options.json,
                                                    outputIsTerminal: isatty(1) == 1, environment: Environment.value)
                writeOut(PathFormatting.statusReport(update, coloured: colour))
            }
            guard options.check, let why = options.requirements.unmet(by: update) else { return .success }
            writeErrorLine("pathctl: \(why)")
            return .notSatisfied
        }
    }
}
