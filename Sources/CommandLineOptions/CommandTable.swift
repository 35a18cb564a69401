// SPDX-License-Identifier: Apache-2.0
/// A program with commands (`pathctl status`, `pathctl wait`), declared once: its options,
/// which of them every command takes, and each command's own options and operands. The
/// parser, the usage text and the shell completions (CommandTable+Completions.swift) all
/// derive from it, so a new command is one entry here and its code.

/// What a shell may offer for an option's value or a command's operands.
public enum ValueCompletion: Hashable, Sendable {
    /// Free text (a number, a time): nothing to offer.
    case nothing
    case files
    /// One of these words.
    case words([String])
    /// The host names the shell knows (/etc/hosts).
    case hostnames
    /// A command's name (what PATH holds), then its arguments (files).
    case commands
}

/// An option of a program with commands: its grammar, and what completions say of it.
public struct CommandOption: Sendable {
    public let spec: OptionSpec
    /// A few words for the completion menus (zsh, fish), where the usage text's help is too long.
    public let brief: String
    public let completion: ValueCompletion
    /// Left out of the usage text and the completions (a tool for packagers, not for users).
    public let isHidden: Bool

    public init(_ spec: OptionSpec, brief: String, completion: ValueCompletion = .nothing,
                hidden isHidden: Bool = false) {
        self.spec = spec
        self.brief = brief
        self.completion = completion
        self.isHidden = isHidden
    }

    public var name: String { spec.name }
}

/// The operands a command takes, one or more of one kind (`route HOST...`), or exactly
/// one (`lease INTERFACE`).
public struct CommandOperands: Sendable {
    /// What one is called in the usage text, `HOST`.
    public let name: String
    /// What it may be, for the message when none is given: "a name or an IP address".
    public let description: String
    public let completion: ValueCompletion
    /// The flag that introduces them (`monitor --route HOST...`): with it they are
    /// needed, without it none is taken. Nil: always needed (`route HOST...`).
    public let introducedBy: String?
    /// A command line to run (`run -- COMMAND [ARG...]`): the first operand is the
    /// command, which must not be empty; its arguments are taken as given, empty ones
    /// too, and those that look like options follow `--`.
    public let isCommandLine: Bool
    /// None is needed (`hold [CRITERION...]`).
    public let isOptional: Bool
    /// Exactly one is taken, not one or more (`lease INTERFACE`).
    public let isSingle: Bool

    public init(_ name: String, description: String, completion: ValueCompletion = .nothing,
                introducedBy: String? = nil, optional isOptional: Bool = false, single isSingle: Bool = false) {
        self.init(name, description: description, completion: completion, introducedBy: introducedBy,
                  isCommandLine: false, isOptional: isOptional, isSingle: isSingle)
    }

    /// A command line: `COMMAND`, then its arguments (`isCommandLine`).
    public static func commandLine(_ name: String, description: String) -> CommandOperands {
        CommandOperands(name, description: description, completion: .commands, introducedBy: nil,
                        isCommandLine: true, isOptional: false, isSingle: false)
    }

    private init(_ name: String, description: String, completion: ValueCompletion, introducedBy: String?,
                 isCommandLine: Bool, isOptional: Bool, isSingle: Bool) {
        self.name = name
        self.description = description
        self.completion = completion
        self.introducedBy = introducedBy
        self.isCommandLine = isCommandLine
        self.isOptional = isOptional
        self.isSingle = isSingle
    }

    /// How they follow the command in the usage text: `HOST...`, `--route HOST...`,
    /// `-- COMMAND [ARG...]`, `[CRITERION...]`, `INTERFACE`.
    public var usage: String {
        if isCommandLine { return "-- \(name) [ARG...]" }
        if isOptional { return "[\(name)...]" }
        if isSingle { return (introducedBy.map { "\($0) " } ?? "") + name }
        return (introducedBy.map { "\($0) " } ?? "") + "\(name)..."
    }
}

/// One command: its name, its line in the usage text, the options it takes besides the
/// global ones, its operands, and `action`, what the program does with it.
public struct CommandSpec<Action: Sendable>: Sendable {
    public let name: String
    public let summary: String
    public let options: [CommandOption]
    public let operands: CommandOperands?
    public let action: Action

    public init(_ name: String, summary: String, options: [CommandOption] = [], operands: CommandOperands? = nil,
                action: Action) {
        self.name = name
        self.summary = summary
        self.options = options
        self.operands = operands
        self.action = action
    }

    /// Whether the command takes `option` (a global one aside).
    public func takes(_ option: String) -> Bool { options.contains { $0.name == option } }
}

/// The table of a program, with commands (pathctl) or without (pathd, pathd-probe: every
/// option is global, `CommandTable<Never>`).
public struct CommandTable<Action: Sendable>: Sendable {
    public let program: String
    /// The manual section of the program's page: 1 for pathctl, 8 for the daemons.
    public let manualSection: Int
    /// Every option, in the order the usage text lists them (derived: see `init`).
    public let options: [CommandOption]
    /// The options every command takes.
    public let globalOptions: [CommandOption]
    /// The options that need no command, as they end the program (`--help`, `--version`).
    public let standaloneOptions: [CommandOption]
    public let commands: [CommandSpec<Action>]

    /// The option list derives from the others, each option once, in `--help`'s order:
    /// the global options, each command's own in the order of the commands, then those
    /// that need no command.
    public init(program: String, manualSection: Int = 1, globalOptions: [CommandOption],
                standaloneOptions: [CommandOption], commands: [CommandSpec<Action>]) {
        let isStandalone = { (option: CommandOption) in standaloneOptions.contains { $0.name == option.name } }
        var seen: Set<String> = []
        self.program = program
        self.manualSection = manualSection
        options = (globalOptions.filter { !isStandalone($0) } + commands.flatMap(\.options) + standaloneOptions)
            .filter { seen.insert($0.name).inserted }
        self.globalOptions = globalOptions
        self.standaloneOptions = standaloneOptions
        self.commands = commands
    }

    public var parser: OptionParser { OptionParser(options.map(\.spec)) }

    /// The options the usage text and the completions show.
    public var visibleOptions: [CommandOption] { options.filter { !$0.isHidden } }

    /// The option lines of the usage text.
    public var optionsHelp: String { OptionParser(visibleOptions.map(\.spec)).optionsHelp }

    /// The command lines of the usage text: "  status      show the current path".
    public var commandsHelp: String {
        commands.map { "  " + $0.name.padded(to: 12) + $0.summary }.joined(separator: "\n")
    }

    public func command(named name: String) -> CommandSpec<Action>? {
        commands.first { $0.name == name }
    }

    /// The command a parsed line names, with its operands, once the line is checked
    /// against it: the command exists, its operands are what it takes, and every option
    /// given applies to it.
    public func command(in line: ParsedCommandLine) throws(UsageError) -> (CommandSpec<Action>, operands: [String]) {
        guard let name = line.operands.first else { throw UsageError("no command given") }
        guard let command = command(named: name) else { throw UsageError("unknown command \"\(name)\"") }
        let operands = Array(line.operands.dropFirst())
        if let kind = command.operands, kind.introducedBy.map(line.has) ?? true {
            guard !operands.isEmpty || kind.isOptional else {
                throw UsageError("\(name) \(kind.introducedBy.map { "\($0) " } ?? "")needs a \(kind.name): "
                    + kind.description)
            }
            if let empty = (kind.isCommandLine ? Array(operands.prefix(1)) : operands).first(where: \.isEmpty) {
                throw UsageError("\(name): \"\(empty)\" is no \(kind.name)")
            }
            if kind.isSingle && operands.count > 1 {
                throw UsageError("\(name) takes one \(kind.name), got \(operands.count)")
            }
        } else if let extra = operands.first {
            throw UsageError("unexpected argument \"\(extra)\" after \(name)")
        }
        for option in line.names where !isGlobal(option) && !command.takes(option) {
            throw UsageError("\(option) does not apply to \(name)")
        }
        return (command, operands)
    }

    /// The visible options a command takes besides the global ones.
    func ownOptions(of command: CommandSpec<Action>) -> [CommandOption] {
        visibleOptions.filter { command.takes($0.name) && !isGlobal($0.name) }
    }

    /// The visible options every command takes.
    var sharedOptions: [CommandOption] {
        visibleOptions.filter { isGlobal($0.name) }
    }

    func isGlobal(_ option: String) -> Bool { globalOptions.contains { $0.name == option } }

    func isStandalone(_ option: String) -> Bool { standaloneOptions.contains { $0.name == option } }

    /// `--completions SHELL` when given (`CommandOption.completions`): the shell asked for.
    public func completionsShell(in line: ParsedCommandLine) throws(UsageError) -> Shell? {
        try line.value(.completions).map { text throws(UsageError) in
            try OptionValue.choice(text, for: CommandOption.completions.name,
                                   among: Shell.allCases.map { ($0.rawValue, $0) })
        }
    }
}

extension CommandTable where Action == Never {
    /// A program without commands: every option is global.
    public init(program: String, manualSection: Int, options: [CommandOption], standaloneOptions: [CommandOption]) {
        self.init(program: program, manualSection: manualSection, globalOptions: options,
                  standaloneOptions: standaloneOptions, commands: [])
    }
}

extension CommandOption {
    /// `-h`, `--help`, as every program of the package takes it.
    public static let help = CommandOption(OptionSpec("--help", short: "-h", help: "show this help and exit"),
                                           brief: "show the help and exit")
    /// `-V`, `--version`, as the daemons take it (pathctl's says more).
    public static let version = CommandOption(OptionSpec("--version", short: "-V", help: "show the version and exit"),
                                              brief: "show the version and exit")
    /// For packaging: each program writes its completion scripts (`make generate`), the
    /// files checked in under packaging/completions.
    public static let completions = CommandOption(
        OptionSpec("--completions", value: "SHELL", help: "print the completion script for SHELL"),
        brief: "print a completion script", completion: .words(Shell.allCases.map(\.rawValue)), hidden: true)
}

extension ParsedCommandLine {
    public func has(_ option: CommandOption) -> Bool { has(option.name) }

    /// The value of a single-value option, nil when it was not given.
    public func value(_ option: CommandOption) -> String? { value(option.name) }

    /// Every value of a repeatable option, in command-line order.
    public func values(_ option: CommandOption) -> [String] { values(option.name) }
}

extension String {
    /// Padded with spaces to `width`, or followed by one space when it is that long already.
    func padded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
