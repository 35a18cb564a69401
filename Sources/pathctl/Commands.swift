import CommandLineOptions
import PathModel
import PathProtocol

/// A pathctl command's code: what it does with the checked options, and the exit status
/// that follows (pathctl(1)). Its metatype is the table's action: a `SendableMetatype`, so
/// that the table is Sendable, a `static let` built once.
protocol Verb: SendableMetatype {
    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus
}

/// pathctl's command table: every option and every command, each command with the code
/// that runs it (one type per verb, in its own file). Parsing, `--help` and the shell
/// completions under packaging/completions derive from it: a new command is an entry
/// here, its file, and its section in pathctl(1).
enum Commands {
    static let table = CommandTable<any Verb.Type>(
        program: "pathctl",
        options: [socket, json, noColor, requireType, prohibitType, route, check] + PathRequirements.options.map(\.option)
            + [timeout, format, since, .help, version, .completions],
        globalOptions: [socket, json, noColor, .help, version],
        standaloneOptions: [.help, version, .completions],
        commands: [
            CommandSpec("status", summary: "show the current path",
                        options: [requireType, prohibitType, check] + requirementOptions,
                        action: StatusVerb.self),
            CommandSpec("monitor", summary: "print the path (or the route to HOST...) and every change",
                        options: [requireType, prohibitType, route],
                        operands: routeHosts, action: MonitorVerb.self),
            CommandSpec("wait", summary: "wait until the path (or the route to every HOST) is satisfied",
                        options: [requireType, prohibitType, timeout, route] + requirementOptions,
                        operands: routeHosts, action: WaitVerb.self),
            CommandSpec("interfaces", summary: "list the links pathd sees and why each is usable or not",
                        action: InterfacesVerb.self),
            CommandSpec("route", summary: "show the route to each address of HOST... and whether it is usable",
                        operands: CommandOperands("HOST", description: "a name or an IP address",
                                                  completion: .hostnames),
                        action: RouteVerb.self),
            CommandSpec("reload", summary: "make pathd read its configuration again", action: ReloadVerb.self),
            CommandSpec("metrics", summary: "print pathd's metrics (OpenMetrics or Prometheus text)",
                        options: [format], action: MetricsVerb.self),
            CommandSpec("history", summary: "list the outages of the path (or of the route to HOST...), and totals",
                        options: [since, route], operands: routeHosts, action: HistoryVerb.self),
        ])

    private static let defaultTimeout = PathctlOptions.defaultTimeout.components.seconds
    private static let routeHosts = CommandOperands("HOST", description: "a name or an IP address",
                                                    completion: .hostnames, introducedBy: route.name)
    private static let requirementOptions = PathRequirements.options.map(\.option)
    private static let interfaceTypes = ValueCompletion.words(InterfaceType.writtenNames.map(\.name))

    static let socket = CommandOption(OptionSpec("--socket", value: "PATH", help: """
        talk to pathd at PATH (default: $PATHD_SOCKET, else
        /run/pathd/pathd.sock, then $XDG_RUNTIME_DIR/pathd/pathd.sock)
        """), brief: "talk to pathd at this socket", completion: .files)
    static let json = CommandOption(OptionSpec("--json", help: "print the daemon's JSON lines instead of text"),
                                    brief: "print the daemon's JSON lines instead of text")
    static let noColor = CommandOption(OptionSpec("--no-color", help: """
        status: no colour (there is none either with NO_COLOR
        set, TERM=dumb, --json, or off a terminal)
        """), brief: "never colour the output")
    static let requireType = CommandOption(OptionSpec("--require-type", value: "TYPE",
                                                      help: "status, monitor, wait: only paths over TYPE count"),
                                           brief: "only paths over this interface type count",
                                           completion: interfaceTypes)
    static let prohibitType = CommandOption(
        OptionSpec("--prohibit-type", value: "TYPE", repeatable: true,
                   help: "status, monitor, wait: paths over TYPE do not count\n(repeatable)"),
        brief: "paths over this interface type do not count", completion: interfaceTypes)
    static let route = CommandOption(OptionSpec("--route", help: """
        monitor, wait: the route to each HOST instead of the
        path (names resolved again when the path changes);
        history: that of each HOST of pathd.conf's [Watch]
        """), brief: "the route to each HOST instead of the path")
    static let check = CommandOption(OptionSpec("--check", help: """
        status: exit 1 unless the path is satisfied (implied
        by --ipv4, --ipv6, --dns and --internet)
        """), brief: "exit 1 unless the path is satisfied")
    static let timeout = CommandOption(OptionSpec("--timeout", value: "SECONDS", help: """
        wait: give up after SECONDS (decimal, default \(defaultTimeout);
        0 checks once)
        """), brief: "give up after this many seconds (default \(defaultTimeout); 0 checks once)")
    static let format = CommandOption(OptionSpec("--format", value: "FORMAT", help: """
        metrics: openmetrics (default) or prometheus (the text
        format node_exporter and promtool read)
        """), brief: "exposition format", completion: .words(Exposition.Format.allCases.map(\.rawValue)))
    static let since = CommandOption(OptionSpec("--since", value: "TIME", help: """
        history: from TIME on: "2026-12-01 03:00", "03:00",
        "yesterday", "-2h", "@1796150000" (see pathctl(1))
        """), brief: "list from this time on (2026-12-01 03:00, yesterday, -2h)")
    static let version = CommandOption(OptionSpec("--version", short: "-V", help: """
        show the versions of pathctl, of the pathd it
        reaches, and of the protocol
        """), brief: "show the versions of pathctl, pathd and the protocol")
}
