// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import Glibc
import PathModel
import PathProtocol
import SystemCalls

/// `pathctl status`: one request, one path, then exit: 0, or with `--check` (or a
/// requirement such as `--ipv6`) 1 when the path is not satisfied or falls short.
struct StatusVerb: Verb, Equatable {
    static let check = CommandOption(OptionSpec("--check", help: """
        status: exit 1 unless the path is satisfied (implied
        by --ipv4, --ipv6, --dns and --internet)
        """), brief: "exit 1 unless the path is satisfied")
    static let command = CommandSpec<any Verb.Type>(
        "status", summary: "show the current path",
        options: CriteriaOptions.options + [check] + PathRequirements.options.map(\.option), action: Self.self)

    /// `--require-type` / `--prohibit-type`.
    var criteria: Criteria
    /// `--check`: exit 1 unless the path is satisfied (and meets `requirements`).
    var check: Bool
    /// `--ipv4`, `--ipv6`, `--dns`, `--internet`: any of them implies `--check`.
    var requirements: PathRequirements

    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError) {
        requirements = PathRequirements(given: line)
        check = line.has(Self.check) || !requirements.isEmpty
        criteria = try CriteriaOptions.criteria(in: line)
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        try converse(global, Request(.status(criteria))) { message, line in
            guard case .path(let update, _) = message else { return nil }
            if global.json {
                echo(line)
            } else {
                let colour = ColourPolicy.isEnabled(noColorOption: global.noColor, json: global.json,
                                                    outputIsTerminal: isatty(1) == 1, environment: Environment.value)
                writeOut(PathFormatting.statusReport(update, coloured: colour))
            }
            guard check, let why = requirements.unmet(by: update) else { return .success }
            writeErrorLine("pathctl: \(why)")
            return .notSatisfied
        }
    }
}
