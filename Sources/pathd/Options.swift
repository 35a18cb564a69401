// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathConfiguration
import ServiceSupport

/// pathd's command line, in the grammar every pathd and pathctl option shares (OptionParser).
/// Each daemon flag is optional: when given, it overrides the configuration file's key,
/// and takes exactly what that key takes (both go through `DaemonSettings.set`).
struct Options {
    /// `--config`: the main file; nil for the default, which may be absent.
    var configPath: String?
    /// The `[Daemon]` keys the flags set, in command-line order, each already checked.
    private(set) var overrides: [(key: String, value: String)] = []

    /// Each daemon flag, with the `[Daemon]` key it overrides: derived from
    /// `DaemonSettings.keys`, so a new key is a new flag with its `--help` lines and its
    /// completions.
    static let daemonFlags: [(option: CommandOption, key: String)] = DaemonSettings.keys.map { key in
        let value = valueName[key.kind] ?? key.kind.rawValue.uppercased()
        let option = CommandOption(OptionSpec(flag(for: key.name), value: value, help: help(for: key)),
                                   brief: brief(for: key), completion: completion[key.kind] ?? .nothing)
        return (option, key.name)
    }

    /// `MaxClientsPerUser` → `--max-clients-per-user`, `LookupIPv4` → `--lookup-ipv4`: a
    /// dash where a lower-case letter meets a capital.
    static func flag(for key: String) -> String {
        var flag = "--"
        var previous: Character?
        for character in key {
            if character.isUppercase, let previous, previous.isLowercase { flag.append("-") }
            flag += character.lowercased()
            previous = character
        }
        return flag
    }

    /// What a flag's value is called in `--help`, by the key's kind.
    private static let valueName: [DaemonKey.Kind: String] = [.address: "ADDR", .count: "N"]

    /// What the shells offer for a flag's value, by the key's kind; nothing for the others.
    private static let completion: [DaemonKey.Kind: ValueCompletion] = [
        .path: .files, .level: .words(LogLevel.allCases.map(\.rawValue)),
    ]

    /// The key's summary up to its first ";" or ":", for the completion menus.
    private static func brief(for key: DaemonKey) -> String {
        String(key.summary.prefix { $0 != ";" && $0 != ":" })
    }

    /// The key's summary, its range and its default, wrapped for the help's column.
    private static func help(for key: DaemonKey) -> String {
        var text = key.summary
        // Paths and addresses say what they are in the summary; numbers need their bounds.
        if let range = key.range, [.count, .size, .level].contains(key.kind) {
            text += " (\(range)" + (key.kind == .size ? ", bytes or with K, M or G" : "") + ")"
        }
        let defaultValue = key.documentedDefault
        if !defaultValue.isEmpty { text += "; default \(defaultValue)" }
        return wordWrapped(text, width: 56).joined(separator: "\n")
    }

    enum Action {
        case run(Options)
        case checkConfig(Options)
        case help
        case version
        /// `--print-example-config`: for packaging, not listed in `--help`.
        case printExampleConfig
        /// `--completions SHELL`: for packaging, the script under packaging/completions.
        case completions(Shell)
    }

    static let config = CommandOption(OptionSpec("--config", value: "PATH", help: """
        main configuration file (default \(ConfigurationFiles.defaultPath),
        optional); drop-ins are read from PATH.d/*.conf
        """), brief: "main configuration file", completion: .files)
    static let checkConfig = CommandOption(
        OptionSpec("--check-config", help: "validate the configuration, print it and exit"),
        brief: "validate the configuration, print it and exit")
    /// For packagers: writes packaging/pathd.conf (ExampleConfiguration). Accepted but
    /// left out of `--help` and of the completions.
    static let printExampleConfig = CommandOption(
        OptionSpec("--print-example-config", help: "print the example pathd.conf and exit"),
        brief: "print the example pathd.conf", hidden: true)

    /// pathd's options: the parser, `--help` and the completions under packaging/completions.
    static let table = CommandTable(
        program: "pathd", manualSection: 8,
        options: [config, checkConfig] + daemonFlags.map(\.option)
            + [.help, .version, printExampleConfig, .completions],
        standaloneOptions: [.help, .version, printExampleConfig, .completions])

    static let usage = """
        Usage: pathd [OPTIONS]
               pathd --check-config [--config PATH]

        Watches the kernel's links, addresses, routes and rules over rtnetlink and
        publishes whether a usable network path exists, as JSON lines on a Unix socket.
        Runs in the foreground; logs one line per path change to stderr. SIGHUP reloads
        the configuration. Options given here override the configuration file's keys;
        each may be given once, as --option VALUE or --option=VALUE.

        Options:
        \(table.optionsHelp)

        Exit status: 0 after SIGTERM or SIGINT (or a valid --check-config), 1 on a
        runtime error or an invalid configuration, 2 on a usage error. See pathd(8)
        and pathd.conf(5).
        """

    /// The files to read: --config (which must then exist) or the default (which may not).
    var configurationFiles: ConfigurationFiles { ConfigurationFiles(configOption: configPath) }

    /// The files' configuration with the flags given here on top (they set `[Daemon]` keys).
    func applied(to configuration: Configuration) -> Configuration {
        var result = configuration
        result.daemon = applied(to: configuration.daemon)
        return result
    }

    /// The configuration file's `[Daemon]` settings with the flags given here on top.
    func applied(to settings: DaemonSettings) -> DaemonSettings {
        var result = settings
        for (key, value) in overrides {
            // Checked by `parse` against the same function; it cannot fail here.
            let outcome = result.set(key, to: value)
            precondition(outcome == .set, "\(key)=\(value) passed parse but not set: \(outcome)")
        }
        return result
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        let line = try table.parser.parse(arguments)
        if line.has(.help) { return .help }
        if line.has(.version) { return .version }
        if line.has(printExampleConfig) { return .printExampleConfig }
        if let shell = try table.completionsShell(in: line) { return .completions(shell) }
        if let operand = line.operands.first { throw UsageError("unexpected argument \"\(operand)\"") }
        var options = Options()
        for occurrence in line.occurrences {
            guard let text = occurrence.value else { continue }
            if let key = daemonFlags.first(where: { $0.option.name == occurrence.name })?.key {
                var probe = DaemonSettings()
                if case .invalid(let expectation) = probe.set(key, to: text) {
                    throw UsageError("\(occurrence.name) expects \(expectation), got \"\(text)\"")
                }
                options.overrides.append((key, text))
            } else if occurrence.name == config.name {
                guard !text.isEmpty else { throw UsageError("\(config.name) needs a path") }
                options.configPath = text
            }
        }
        return line.has(checkConfig) ? .checkConfig(options) : .run(options)
    }
}
