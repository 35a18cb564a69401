// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import ServiceSupport
import PathModel
import PathConfiguration

/// pathd-probe's command line, in the grammar pathd and pathctl share.
struct ProbeOptions {
    /// `--socket`: pathd's socket; nil searches as every client does.
    var socketPath: String?
    /// `--config`: the main file; nil for pathd's default, which may be absent.
    var configPath: String?

    enum Action {
        case run(ProbeOptions)
        case help
        case version
        /// `--completions SHELL`: for packaging, the script under packaging/completions.
        case completions(Shell)
    }

    static let socket = CommandOption(OptionSpec("--socket", value: "PATH", help: """
        pathd's socket (default: $\(SocketPath.environmentVariable), else
        \(SocketPath.fallbacksInWords))
        """), brief: "pathd's socket", completion: .files)
    static let config = CommandOption(OptionSpec("--config", value: "PATH", help: """
        pathd's configuration file, whose [Connectivity] section
        says what to check (default \(ConfigurationFiles.defaultPath), optional);
        drop-ins are read from PATH.d/*.conf
        """), brief: "configuration file with the Connectivity section", completion: .files)

    /// pathd-probe's options: the parser, `--help` and the completions under packaging/completions.
    static let table = CommandTable(program: "pathd-probe", manualSection: 8,
                                    options: [socket, config, .help, .version, .completions],
                                    standaloneOptions: [.help, .version, .completions])

    static let usage = """
        Usage: pathd-probe [--socket PATH] [--config PATH]

        Checks connectivity beyond the path pathd reports: subscribes to pathd, and on
        each change of the path (after a second of quiet) and every Interval= while it is
        satisfied, fetches [Connectivity] URL= through each interface of the path and
        reports to pathd whether the expected content came back (full), something else
        answered (portal), the exchange failed (limited) or no connection was made (none).
        Without URL= nothing is contacted. SIGHUP reads the configuration again and
        checks at once; SIGTERM and SIGINT stop it. Runs as root or as pathd's user: pathd
        takes reports from nobody else.

        Options:
        \(table.optionsHelp)

        Exit status: 0 after SIGTERM or SIGINT, 1 on a runtime error or an invalid
        configuration, 2 on a usage error. See pathd-probe(8) and pathd.conf(5).
        """

    var configurationFiles: ConfigurationFiles { ConfigurationFiles(configOption: configPath) }

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        let line = try table.parser.parse(arguments)
        if line.has(.help) { return .help }
        if line.has(.version) { return .version }
        if let shell = try table.completionsShell(in: line) { return .completions(shell) }
        if let operand = line.operands.first { throw UsageError("unexpected argument \"\(operand)\"") }
        var options = ProbeOptions()
        if let path = line.value(socket) {
            if let expectation = SocketPath.expectation(for: path, absolute: true) {
                throw UsageError("\(socket.name) expects \(expectation)")
            }
            options.socketPath = path
        }
        if let path = line.value(config) {
            guard !path.isEmpty else { throw UsageError("\(config.name) needs a path") }
            options.configPath = path
        }
        return .run(options)
    }
}
