// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel

/// pathctl's exit statuses, as nm-online(1) has them; pathctl(1) and `--help` list them.
enum PathctlExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    /// The path is not satisfied: `wait` timed out, or `status --check` found it so;
    /// `route`: some HOST has no address with a satisfied route.
    case notSatisfied = 1
    case usage = 2
    /// pathd could not be reached, or the connection broke before the answer.
    case unreachable = 3
    /// pathd answered with an error (its code and message are printed).
    case refused = 4
    /// `route`: a HOST could not be resolved to any address (the others were answered).
    case unresolved = 5
    /// `run`: the criteria stopped holding and pathctl stopped the command (without
    /// `--restart`); `hold`: they stopped holding. EX_TEMPFAIL of sysexits(3): try again
    /// later, as a timer or `Restart=` does.
    case networkChanged = 75
}

enum PathctlCommand {
    case help
    /// `-V`/`--version`, which also asks the daemon at `socketPath` (nil: the default).
    case version(socketPath: String?)
    /// A command: its verb with its own options read, and the global ones.
    case run(any Verb, GlobalOptions)
    /// `--completions SHELL`: the completion script, for packaging/completions.
    case completions(Shell)
}

/// pathctl's command line: the usage text and the reading of an invocation, both from
/// `Commands.table`.
enum PathctlCommandLine {
    static var usage: String {
        let table = Commands.table
        let withOperands = table.commands.compactMap { command in
            command.operands.map { "       pathctl [--socket PATH] \(command.name) [--json] \($0.usage)\n" }
        }.joined()
        let deadline = answerDeadline.decimalSeconds
        return """
            Usage: pathctl [--socket PATH] COMMAND [OPTIONS]
            \(withOperands)
            Asks pathd whether a usable network path exists.

            Commands:
            \(table.commandsHelp)

            Options (before or after the command; --flag VALUE or --flag=VALUE):
            \(table.optionsHelp)

            Interface types, in any case: \(InterfaceType.knownNames)
            (also \(InterfaceType.aliasesDescription)).

            Exit status: 0 success (wait and status --check: satisfied; route and
            wait --route: every HOST has an address with a satisfied route); 1 not
            satisfied (wait timed out, status --check, route); 2 usage error; 3 pathd cannot
            be reached, or did not answer within \(deadline) s (wait: said no hello before
            the timeout); 4 pathd refused (its error code is shown); 5 route, and
            wait --route --timeout 0: a HOST did not resolve; 75 run: the criteria
            stopped holding and the command was stopped (otherwise run ends as its
            command did: its status, or its signal), 126 or 127 its command could not
            run or was not found; hold: 1 the criteria did not hold, 75 they stopped
            holding. See pathctl(1).

            """
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> PathctlCommand {
        let table = Commands.table
        let line = try table.parser.parse(arguments)
        if line.has(.help) { return .help }
        if let shell = try table.completionsShell(in: line) { return .completions(shell) }
        let global = try GlobalOptions(line)
        if line.has(GlobalOptions.version) {
            // Another word is a mistake, as after any command (`pathctl status -V` is fine).
            if let first = line.operands.first {
                guard table.command(named: first) != nil else {
                    throw UsageError("unexpected argument \"\(first)\" after \(GlobalOptions.version.name)")
                }
                _ = try table.command(in: line)
            }
            return .version(socketPath: global.socketPath)
        }
        let (command, operands) = try table.command(in: line)
        return .run(try command.action.init(line, operands: operands), global)
    }
}
