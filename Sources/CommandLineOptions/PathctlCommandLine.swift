import PathModel
import PathProtocol

/// pathctl's exit statuses, as nm-online(1) has them; pathctl(1) and `--help` list them.
public enum PathctlExitStatus: Int32, Sendable, CaseIterable {
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
}

/// pathctl's commands (one type per verb lives in the executable).
public enum PathctlVerb: String, CaseIterable, Sendable {
    case status, monitor, wait, interfaces, route, reload, metrics, history

    public var summary: String {
        switch self {
        case .status: "show the current path"
        case .monitor: "print the path and every change until interrupted"
        case .wait: "wait until the path is satisfied"
        case .interfaces: "list the links pathd sees and why each is usable or not"
        case .route: "show the route to each address of HOST... and whether it is usable"
        case .reload: "make pathd read its configuration again"
        case .metrics: "print pathd's metrics (OpenMetrics or Prometheus text)"
        case .history: "list the outages of the last path changes, and totals"
        }
    }

    /// The options this verb takes besides the global ones.
    public var verbOptions: [String] {
        switch self {
        case .status: ["--require-type", "--prohibit-type", "--check"]
        case .monitor: ["--require-type", "--prohibit-type"]
        case .wait: ["--require-type", "--prohibit-type", "--timeout"]
        case .metrics: ["--format"]
        case .history: ["--since"]
        case .interfaces, .route, .reload: []
        }
    }
}

/// What one pathctl invocation asks for, checked.
public struct PathctlOptions: Equatable, Sendable {
    /// `wait` without `--timeout` gives up after this long, as nm-online does.
    public static let defaultTimeout: Duration = .seconds(30)

    public var verb: PathctlVerb
    /// `--socket`; nil for the default socket.
    public var socketPath: String?
    public var json = false
    public var noColor = false
    /// `--require-type` / `--prohibit-type`: the question status, monitor and wait ask.
    public var criteria = Criteria.any
    /// `wait --timeout`; zero checks once.
    public var timeout = PathctlOptions.defaultTimeout
    /// `status --check`: exit 1 unless the path is satisfied.
    public var check = false
    /// `metrics --format`: the exposition format.
    public var metricsFormat = Exposition.Format.openMetrics
    /// `history --since`: the oldest time asked about.
    public var since: TimeSpecification?
    /// `route HOST...`: the names or addresses asked about, in order.
    public var hosts: [String] = []

    public init(verb: PathctlVerb) {
        self.verb = verb
    }
}

public enum PathctlCommand: Equatable, Sendable {
    case help
    /// `-V`/`--version`, which also asks the daemon at `socketPath` (nil: the default).
    case version(socketPath: String?)
    case run(PathctlOptions)
}

/// pathctl's command line: the options, their help, and what makes an invocation valid.
public enum PathctlCommandLine {
    /// The options that apply to every command.
    static let globalOptions = ["--socket", "--json", "--no-color", "--help", "--version"]

    public static let parser = OptionParser([
        OptionSpec("--socket", value: "PATH", help: """
            talk to pathd at PATH (default: $PATHD_SOCKET, else
            /run/pathd/pathd.sock, then $XDG_RUNTIME_DIR/pathd/pathd.sock)
            """),
        OptionSpec("--json", help: "print the daemon's JSON lines instead of text"),
        OptionSpec("--no-color", help: "status: no colour (there is none either with NO_COLOR\nset, TERM=dumb, --json, or off a terminal)"),
        OptionSpec("--require-type", value: "TYPE", help: "status, monitor, wait: only paths over TYPE count"),
        OptionSpec("--prohibit-type", value: "TYPE", repeatable: true,
                   help: "status, monitor, wait: paths over TYPE do not count\n(repeatable)"),
        OptionSpec("--check", help: "status: exit 1 unless the path is satisfied"),
        OptionSpec("--timeout", value: "SECONDS", help: """
            wait: give up after SECONDS (decimal, default \(PathctlOptions.defaultTimeout.components.seconds);
            0 checks once)
            """),
        OptionSpec("--format", value: "FORMAT", help: """
            metrics: openmetrics (default) or prometheus (the text
            format node_exporter and promtool read)
            """),
        OptionSpec("--since", value: "TIME", help: """
            history: from TIME on: "2026-12-01 03:00", "03:00",
            "yesterday", "-2h", "@1796150000" (see pathctl(1))
            """),
        OptionSpec("--help", short: "-h", help: "show this help and exit"),
        OptionSpec("--version", short: "-V", help: "show the versions of pathctl, of the pathd it\nreaches, and of the protocol"),
    ])

    public static let usage = """
        Usage: pathctl [--socket PATH] COMMAND [OPTIONS]
               pathctl [--socket PATH] route [--json] HOST...

        Asks pathd whether a usable network path exists.

        Commands:
        \(PathctlVerb.allCases.map { "  " + $0.rawValue.padded(to: 12) + $0.summary }.joined(separator: "\n"))

        Options (before or after the command; --flag VALUE or --flag=VALUE):
        \(parser.optionsHelp)

        Interface types, in any case: \(InterfaceType.allCases.map(\.rawValue).joined(separator: ", "))
        (also wired or ethernet for wiredEthernet).

        Exit status: 0 success (wait and status --check: satisfied; route: every HOST
        has an address with a satisfied route); 1 not satisfied (wait timed out,
        status --check, route); 2 usage error; 3 pathd cannot be reached; 4 pathd
        refused (its error code is shown); 5 route: a HOST did not resolve. See pathctl(1).

        """

    public static func parse(_ arguments: [String]) throws(UsageError) -> PathctlCommand {
        let line = try parser.parse(arguments)
        if line.has("--help") { return .help }
        let socketPath = try line.value("--socket").map { path throws(UsageError) in
            if let expectation = SocketPath.expectation(for: path, absolute: false) {
                throw UsageError("--socket expects \(expectation)")
            }
            return path
        }
        if line.has("--version") { return .version(socketPath: socketPath) }

        guard let name = line.operands.first else { throw UsageError("no command given") }
        guard let verb = PathctlVerb(rawValue: name) else { throw UsageError("unknown command \"\(name)\"") }
        let hosts = Array(line.operands.dropFirst())
        if verb == .route {
            guard !hosts.isEmpty else { throw UsageError("route needs a HOST: a name or an IP address") }
            if let empty = hosts.first(where: \.isEmpty) {
                throw UsageError("route: \"\(empty)\" is no HOST")
            }
        } else if let extra = hosts.first {
            throw UsageError("unexpected argument \"\(extra)\" after \(verb.rawValue)")
        }
        for option in line.names where !globalOptions.contains(option) && !verb.verbOptions.contains(option) {
            throw UsageError("\(option) does not apply to \(verb.rawValue)")
        }

        var options = PathctlOptions(verb: verb)
        options.socketPath = socketPath
        options.json = line.has("--json")
        options.noColor = line.has("--no-color")
        options.hosts = hosts
        options.check = line.has("--check")
        if let text = line.value("--timeout") {
            options.timeout = try OptionValue.seconds(text, for: "--timeout")
        }
        if let text = line.value("--format") {
            options.metricsFormat = try OptionValue.choice(text, for: "--format",
                                                           among: Exposition.Format.allCases.map { ($0.rawValue, $0) })
        }
        if let text = line.value("--since") {
            options.since = try TimeSpecification.parse(text, for: "--since")
        }
        if let text = line.value("--require-type") {
            options.criteria.requiredInterfaceType = try interfaceType(text, for: "--require-type")
        }
        for text in line.values("--prohibit-type") {
            let type = try interfaceType(text, for: "--prohibit-type")
            if type == options.criteria.requiredInterfaceType {
                throw UsageError("--require-type \(type.rawValue) and --prohibit-type \(text) contradict each other")
            }
            options.criteria.prohibitedInterfaceTypes.insert(type)
        }
        return .run(options)
    }

    private static func interfaceType(_ text: String, for option: String) throws(UsageError) -> InterfaceType {
        try OptionValue.choice(text, for: option, among: InterfaceType.commandLineNames)
    }
}

extension String {
    /// Padded with spaces to `width`, or followed by one space when it is that long already.
    func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
