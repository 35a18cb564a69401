// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import Testing

@Suite("A command table: parsing, usage text and completions from one declaration")
struct CommandTableTests {
    static let socket = CommandOption(OptionSpec("--socket", value: "PATH", help: "talk to PATH"),
                                      brief: "socket to use", completion: .files)
    static let colour = CommandOption(OptionSpec("--colour", value: "WHEN", help: "paint: when to colour"),
                                      brief: "when to colour", completion: .words(["always", "never"]))
    static let dump = CommandOption(OptionSpec("--dump", value: "SHELL", help: "write a script"),
                                    brief: "write a script", hidden: true)
    static let options = [socket, colour, .help, dump]

    func table(_ extra: [CommandSpec<String>] = []) -> CommandTable<String> {
        CommandTable(program: "tool", globalOptions: [Self.socket, .help],
                     standaloneOptions: [.help, Self.dump],
                     commands: [
                        CommandSpec("paint", summary: "paint the wall", options: [Self.colour], action: "painting"),
                        CommandSpec("ping", summary: "ping each HOST",
                                    operands: CommandOperands("HOST", description: "a name", completion: .hostnames),
                                    action: "pinging"),
                     ] + extra)
    }

    func usageError(_ arguments: String...) -> String? {
        do {
            let table = table()
            _ = try table.command(in: table.parser.parse(arguments))
            return nil
        } catch {
            return error.description
        }
    }

    @Test("the command named is found with its operands and its action")
    func command() throws {
        let table = table()
        let (command, operands) = try table.command(in: table.parser.parse(["--socket=/s", "ping", "a", "b"]))
        #expect(command.action == "pinging")
        #expect(operands == ["a", "b"])
        #expect(try table.command(in: table.parser.parse(["paint", "--colour", "never"])).0.action == "painting")
    }

    /// `run -- COMMAND [ARG...]`: the command must be there and not empty; its arguments
    /// are taken as given, empty ones and dashed ones (after `--`) too.
    @Test("a command line's operands: the command required, its arguments as given")
    func commandLine() throws {
        let run = CommandSpec("exec", summary: "run COMMAND", options: [Self.colour],
                              operands: .commandLine("COMMAND", description: "what to run"), action: "running")
        let table = table([run])
        let (_, operands) = try table.command(in: table.parser.parse(["exec", "--colour=never", "--", "printf", "",
                                                                      "-x"]))
        #expect(operands == ["printf", "", "-x"])
        #expect(throws: UsageError("exec needs a COMMAND: what to run")) {
            try table.command(in: table.parser.parse(["exec", "--colour=never"]))
        }
        #expect(throws: UsageError("exec: \"\" is no COMMAND")) {
            try table.command(in: table.parser.parse(["exec", "--", ""]))
        }
        #expect(run.operands?.usage == "-- COMMAND [ARG...]")
        #expect(table.completion(for: .bash).contains("compgen -c -f"))
        #expect(table.completion(for: .zsh).contains("_command_names -e"))
        #expect(table.completion(for: .fish).contains("__fish_complete_command"))
    }

    @Test("the option list derives from the table: the global options, each command's, the standalone ones, once")
    func derivedOptions() {
        let table = table([CommandSpec("mix", summary: "mix the paint", options: [Self.colour], action: "mixing")])
        #expect(table.options.map(\.name) == ["--socket", "--colour", "--help", "--dump"])
        #expect(table.visibleOptions.map(\.name) == ["--socket", "--colour", "--help"])
    }

    @Test("a missing or unknown command, wrong operands and an option of another command are usage errors")
    func mistakes() {
        #expect(usageError() == "no command given")
        #expect(usageError("fly") == "unknown command \"fly\"")
        #expect(usageError("paint", "red") == "unexpected argument \"red\" after paint")
        #expect(usageError("ping") == "ping needs a HOST: a name")
        #expect(usageError("ping", "") == "ping: \"\" is no HOST")
        #expect(usageError("ping", "a", "--colour=never") == "--colour does not apply to ping")
        #expect(usageError("paint", "--socket", "/s", "--colour", "always") == nil)
    }

    @Test("a hidden option parses but is in neither the usage text nor a completion")
    func hidden() throws {
        let table = table()
        #expect(try table.parser.parse(["--dump", "bash"]).value("--dump") == "bash")
        #expect(!table.optionsHelp.contains("--dump"))
        #expect(table.optionsHelp.contains("--socket PATH"))
        for shell in Shell.allCases { #expect(!table.completion(for: shell).contains("dump"), "\(shell)") }
    }

    @Test("one more entry in the table is in the usage text and in every shell's completion, with its options")
    func newCommand() {
        let before = table()
        let after = table([CommandSpec("mix", summary: "mix the paint", options: [Self.colour], action: "mixing")])
        #expect(!before.commandsHelp.contains("mix"))
        #expect(after.commandsHelp.contains("  mix         mix the paint"))
        for shell in Shell.allCases {
            let script = after.completion(for: shell)
            #expect(!before.completion(for: shell).contains("mix"), "\(shell)")
            #expect(script.contains("mix"), "\(shell)")
        }
        #expect(after.completion(for: .bash).contains("mix) options+=\" --colour\" ;;"))
        #expect(after.completion(for: .fish)
            .contains("__fish_seen_subcommand_from paint mix' -l colour -x -a 'always never'"))
        let colour = "'--colour=[when to colour]:when:(always never)'"
        #expect(after.completion(for: .zsh).contains("mix) _arguments $common \(colour) ;;"))
        #expect(after.completion(for: .zsh).contains("paint) _arguments $common \(colour) ;;"))
    }

    @Test("values and operands complete by kind: files, words, host names, or nothing")
    func valueKinds() {
        let table = table()
        let bash = table.completion(for: .bash)
        #expect(bash.contains("--socket)\n            COMPREPLY=($(compgen -f -- \"$cur\"))"))
        #expect(bash.contains("--colour)\n            COMPREPLY=($(compgen -W \"always never\" -- \"$cur\"))"))
        #expect(bash.contains("elif [[ $command == ping && $cur != -* ]]"))
        #expect(bash.contains("COMPREPLY=($(compgen -A hostname -- \"$cur\"))"))
        #expect(bash.contains("complete -F _tool tool"))
        let zsh = table.completion(for: .zsh)
        #expect(zsh.hasPrefix("#compdef tool\n"))
        #expect(zsh.contains("'--socket=[socket to use]:path:_files'"))
        #expect(zsh.contains("'(- *)'{-h,--help}'[show the help and exit]'"))
        #expect(zsh.contains("ping) _arguments $common '*:host:_hosts' ;;"))
        let fish = table.completion(for: .fish)
        #expect(fish.contains("complete -c tool -l socket -r -F -d 'socket to use'"))
        #expect(fish.contains("complete -c tool -s h -l help -d 'show the help and exit'"))
        #expect(fish.contains(
            "complete -c tool -n '__fish_seen_subcommand_from ping' -a '(__fish_print_hostnames)' -d 'host'"))
    }

    @Test("quotes in descriptions are escaped for each shell")
    func quoting() {
        let table = CommandTable(program: "tool", globalOptions: [.help],
                                 standaloneOptions: [],
                                 commands: [CommandSpec("say", summary: "print pathd's [name]", action: "")])
        #expect(table.completion(for: .zsh).contains("'say:print pathd'\\''s [name]'"))
        #expect(table.completion(for: .fish).contains("-a say -d 'print pathd\\'s [name]'"))
    }

    @Test("a program without commands: every option is global, and each shell completes options and values")
    func withoutCommands() throws {
        let table = CommandTable(program: "daemon", manualSection: 8, options: Self.options,
                                 standaloneOptions: [.help, Self.dump])
        #expect(try table.parser.parse(["--colour", "never"]).value(Self.colour) == "never")
        let bash = table.completion(for: .bash)
        #expect(bash.hasPrefix("# bash completion for daemon(8): options and their values.\n"))
        #expect(bash.contains("--colour)\n            COMPREPLY=($(compgen -W \"always never\" -- \"$cur\"))"))
        #expect(bash.contains("    COMPREPLY=($(compgen -W \"--socket --colour --help\" -- \"$cur\"))\n}"))
        #expect(!bash.contains("local command"))
        let zsh = table.completion(for: .zsh)
        #expect(zsh.contains("_arguments \\\n  '--socket=[socket to use]:path:_files' \\\n"))
        #expect(zsh.contains("'(- *)'{-h,--help}'[show the help and exit]'\n"))
        let fish = table.completion(for: .fish)
        #expect(fish.contains("complete -c daemon -f\ncomplete -c daemon -l socket -r -F -d 'socket to use'\n"))
        #expect(!fish.contains("__fish_seen_subcommand_from"))
        for shell in Shell.allCases { #expect(!table.completion(for: shell).contains("dump"), "\(shell)") }
    }

    @Test("--completions names a shell, in any case")
    func completionsShell() throws {
        let table = CommandTable(program: "daemon", manualSection: 8, options: [.help, .completions],
                                 standaloneOptions: [.help, .completions])
        #expect(try table.completionsShell(in: table.parser.parse(["--completions=Zsh"])) == .zsh)
        #expect(try table.completionsShell(in: table.parser.parse(["--help"])) == nil)
        #expect(throws: UsageError("--completions expects one of bash, zsh, fish, got \"tcsh\"")) {
            try table.completionsShell(in: table.parser.parse(["--completions", "tcsh"]))
        }
    }
}
