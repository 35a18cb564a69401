// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions

/// A pathctl command, in swift-argument-parser's shape: a type that owns its options
/// (declared beside it, or a group it shares: `GlobalOptions`, `CriteriaOptions`,
/// `PathRequirements`, `RouteOption`), reads them into typed fields, and runs. Its
/// metatype is the table's action: a `SendableMetatype`, so that the table is Sendable,
/// a `static let` built once.
protocol Verb: SendableMetatype {
    /// Its entry in the table: name, summary, the options it takes besides the global
    /// ones, its operands.
    static var command: CommandSpec<any Verb.Type> { get }
    /// Its options, from a command line the table has checked against `command`.
    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError)
    /// What it does, and the exit status that follows (pathctl(1)).
    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus
}

/// A command that takes no options or operands of its own (`interfaces`, `reload`).
protocol PlainVerb: Verb {
    init()
}

extension PlainVerb {
    init(_ line: ParsedCommandLine, operands: [String]) { self.init() }
}

/// pathctl's command table: the global options and every command. Parsing, `--help` and
/// the shell completions under packaging/completions derive from it, and so does the
/// option list (`--help`'s order: the global options, each command's in the order of the
/// commands, then those that need no command). A new command is its file, its entry
/// here, and its section in pathctl(1).
enum Commands {
    static let table = CommandTable<any Verb.Type>(
        program: "pathctl", globalOptions: GlobalOptions.options,
        standaloneOptions: [.help, GlobalOptions.version, .completions],
        commands: [StatusVerb.command, MonitorVerb.command, WaitVerb.command, InterfacesVerb.command,
                   RouteVerb.command, ReloadVerb.command, MetricsVerb.command, HistoryVerb.command,
                   RunVerb.command, HoldVerb.command, NetworksVerb.command, LeaseVerb.command])
}
