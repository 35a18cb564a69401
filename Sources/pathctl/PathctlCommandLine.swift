import CommandLineOptions
import PathModel
import PathProtocol

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
}

/// What one pathctl invocation asks for, checked.
struct PathctlOptions: Equatable, Sendable {
    /// `wait` without `--timeout` gives up after this long, as nm-online does.
    static let defaultTimeout: Duration = .seconds(30)
    /// How long pathd may take to say hello, and then to answer each request of a
    /// command that asks once (status, interfaces, route, reload, metrics, history,
    /// `--version`, `wait --timeout 0`) before pathctl gives up with exit 3. pathd answers
    /// from memory: a request's round trip is well under a millisecond, its p99 a few
    /// milliseconds on a loaded machine (docs/PERFORMANCE.md, "The route request"), and a
    /// socket-activated pathd says hello once it has read the kernel's state. So only a
    /// hung daemon, or something else on the socket, waits this long; and `systemctl
    /// reload pathd` (ExecReload= runs `pathctl reload`) fails with this line well before
    /// systemd's own 90 s timeout would kill it.
    static let answerDeadline: Duration = .seconds(10)

    /// The command's name, one of `Commands.table`'s.
    var verb: String
    /// `--socket`; nil for the default socket.
    var socketPath: String?
    var json = false
    var noColor = false
    /// `--require-type` / `--prohibit-type`: the question status, monitor and wait ask.
    var criteria = Criteria.any
    /// `wait --timeout`; zero checks once.
    var timeout = PathctlOptions.defaultTimeout
    /// `status --check`: exit 1 unless the path is satisfied (and meets `requirements`).
    var check = false
    /// `--ipv4`, `--ipv6`, `--dns`, `--internet`: what `wait` and `status --check` ask of a
    /// satisfied path; any of them given to `status` implies `--check`.
    var requirements: PathRequirements = []
    /// `metrics --format`: the exposition format.
    var metricsFormat = Exposition.Format.openMetrics
    /// `history --since`: the oldest time asked about.
    var since: TimeSpecification?
    /// `route HOST...`, `monitor --route HOST...`, `wait --route HOST...`: the names or
    /// addresses asked about, in order.
    var hosts: [String] = []
    /// `monitor --route`, `wait --route`: the routes to `hosts` instead of the path.
    var route = false

    init(verb: String) {
        self.verb = verb
    }
}

enum PathctlCommand: Equatable, Sendable {
    case help
    /// `-V`/`--version`, which also asks the daemon at `socketPath` (nil: the default).
    case version(socketPath: String?)
    case run(PathctlOptions)
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
        let deadline = PathctlOptions.answerDeadline.decimalSeconds
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
            wait --route --timeout 0: a HOST did not resolve. See pathctl(1).

            """
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> PathctlCommand {
        let table = Commands.table
        let line = try table.parser.parse(arguments)
        if line.has(.help) { return .help }
        if let shell = try table.completionsShell(in: line) { return .completions(shell) }
        let socketPath = try line.value(Commands.socket).map { path throws(UsageError) in
            if let expectation = SocketPath.expectation(for: path, absolute: false) {
                throw UsageError("\(Commands.socket.name) expects \(expectation)")
            }
            return path
        }
        if line.has(Commands.version) {
            // Another word is a mistake, as after any command (`pathctl status -V` is fine).
            if let first = line.operands.first {
                guard table.command(named: first) != nil else {
                    throw UsageError("unexpected argument \"\(first)\" after --version")
                }
                _ = try table.command(in: line)
            }
            return .version(socketPath: socketPath)
        }

        let (command, operands) = try table.command(in: line)
        var options = PathctlOptions(verb: command.name)
        options.socketPath = socketPath
        options.json = line.has(Commands.json)
        options.noColor = line.has(Commands.noColor)
        options.hosts = operands
        options.route = line.has(Commands.route)
        if options.route {
            // The route to a host has no criteria, and its only requirement is a usable route.
            let pathOnly = [Commands.requireType, Commands.prohibitType] + PathRequirements.options.map(\.option)
            if let option = pathOnly.first(where: line.has) {
                throw UsageError("\(option.name) does not apply with \(Commands.route.name)")
            }
        }
        for (option, requirement, _, _) in PathRequirements.options where line.has(option) {
            options.requirements.insert(requirement)
        }
        options.check = line.has(Commands.check) || !options.requirements.isEmpty
        if let text = line.value(Commands.timeout) {
            options.timeout = try OptionValue.seconds(text, for: Commands.timeout.name)
        }
        if let text = line.value(Commands.format) {
            options.metricsFormat = try OptionValue.choice(text, for: Commands.format.name,
                                                           among: Exposition.Format.allCases.map { ($0.rawValue, $0) })
        }
        if let text = line.value(Commands.since) {
            options.since = try TimeSpecification.parse(text, for: Commands.since.name)
        }
        if let text = line.value(Commands.requireType) {
            options.criteria.requiredInterfaceType = try interfaceType(text, for: Commands.requireType.name)
        }
        for text in line.values(Commands.prohibitType) {
            let type = try interfaceType(text, for: Commands.prohibitType.name)
            if type == options.criteria.requiredInterfaceType {
                throw UsageError("--require-type \(type.rawValue) and --prohibit-type \(text) contradict each other")
            }
            options.criteria.prohibitedInterfaceTypes.insert(type)
        }
        return .run(options)
    }

    private static func interfaceType(_ text: String, for option: String) throws(UsageError) -> InterfaceType {
        guard let type = InterfaceType(written: text) else {
            throw UsageError("\(option) expects one of \(InterfaceType.writtenNamesDescription), got \"\(text)\"")
        }
        return type
    }
}
