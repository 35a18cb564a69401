// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// packaging/completions: each program's, written from its table, completes what its `--help` lists.
@Suite("Shell completions", .blocking)
struct CompletionTests {
    @Test("bash: sourcing the completion completes `pathctl w` to wait, and options and types in place")
    func bash() throws {
        #expect(try Self.bash(["pathctl", "w"]) == ["wait"])
        #expect(try Self.bash(["pathctl", "--socket=/tmp/p.sock", "mon"]) == ["monitor"])
        #expect(try Self.bash(["pathctl", "status", "--require-type", "c"]) == ["cellular"])
        #expect(try Self.bash(["pathctl", "wait", "--t"]) == ["--timeout"])
        #expect(try Self.bash(["pathctl", "interfaces", "--t"]) == [])
        #expect(try Self.bash(["pathctl", "ro"]) == ["route"])
        #expect(try Self.bash(["pathctl", "route", "--j"]) == ["--json"])
        // route HOST...: host names, never the commands again.
        #expect(try !Self.bash(["pathctl", "route", ""]).contains("status"))
        if try String(contentsOfFile: "/etc/hosts", encoding: .utf8).contains("localhost") {
            #expect(try Self.bash(["pathctl", "route", "example.org", "localh"]).contains("localhost"))
        }
        #expect(try Self.bash(["pathd", "--log-level", "d"], file: "pathd.bash") == ["debug"])
        #expect(try Self.bash(["pathd-probe", "--c"], file: "pathd-probe.bash") == ["--config"])
    }

    @Test("fish: `pathctl w` completes to wait, interface types after --require-type",
          .enabled(if: Self.has("fish"), "fish is not installed"))
    func fish() throws {
        #expect(try Self.fish("pathctl w") == ["wait"])
        #expect(try Self.fish("pathctl ro") == ["route"])
        #expect(try Self.fish("pathctl status --require-type c") == ["cellular"])
        #expect(try Self.fish("pathd --log-level=d", file: "pathd.fish") == ["--log-level=debug"])
    }

    @Test("zsh: _pathctl and _pathd parse", .enabled(if: Self.has("zsh"), "zsh is not installed"))
    func zsh() throws {
        for file in ["_pathctl", "_pathd", "_pathd-probe"] {
            let result = try Command.run(Command.find("zsh"),
                                         ["--no-exec", Repository.path("packaging/completions/\(file)")])
            #expect(result.termination == .exit(0), "\(file): \(result.stderr)")
        }
    }

    @Test("each checked-in completion is what `PROGRAM --completions SHELL` writes from the program's table",
          arguments: ["pathctl", "pathd", "pathd-probe"], [("bash", "%.bash"), ("zsh", "_%"), ("fish", "%.fish")])
    func completionsAreGenerated(program: String, shell: (name: String, file: String)) throws {
        let file = shell.file.replacing("%", with: program)
        let generated = try Command.check(BuiltProduct.url(program), ["--completions", shell.name])
        #expect(generated == (try Repository.read("packaging/completions/\(file)")),
                "packaging/completions/\(file) is stale: run `make generate`")
    }

    @Test("every command, option and interface type of pathctl --help is in each pathctl completion")
    func pathctlCompletionsAreComplete() throws {
        let help = try Command.check(BuiltProduct.url("pathctl"), ["--help"])
        let lines = help.split(separator: "\n")
        let commands = UsageText(help).commands
        let options = UsageText(help).longOptions
        let typesLine = try #require(lines.first { $0.hasPrefix("Interface types, in any case: ") })
        let types = typesLine.dropFirst("Interface types, in any case: ".count).split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(!commands.isEmpty && options.count >= 11 && types.count == 5, "\(commands) \(options) \(types)")
        for file in ["pathctl.bash", "_pathctl", "pathctl.fish"] {
            let text = try Repository.read("packaging/completions/\(file)")
            for word in commands + types {
                #expect(text.contains(word), "\(word) is missing from \(file)")
            }
            for option in options {
                // fish spells --socket as `-l socket`.
                let spelled = file.hasSuffix(".fish") ? "-l \(option.dropFirst(2))" : option
                #expect(text.contains(spelled), "\(option) is missing from \(file)")
            }
        }
    }

    @Test("bash and fish offer every option of pathd --help, and complete each value by its key's kind")
    func pathdCompletions() throws {
        let options = UsageText(try Command.check(BuiltProduct.url("pathd"), ["--help"])).longOptions
        #expect(options.count >= 17, "\(options)")
        #expect(try Self.bash(["pathd", "--"], file: "pathd.bash") == options)
        #expect(try Self.bash(["pathd", "--max-clients-per-user", ""], file: "pathd.bash") == [])
        #expect(try Self.bash(["pathd", "--socket", "/proc/self/cwd/Pack"], file: "pathd.bash")
            == ["/proc/self/cwd/Package.swift"])
        if Self.has("fish") {
            #expect(try Set(Self.fish("pathd --", file: "pathd.fish")) == Set(options))
            #expect(try Self.fish("pathd --max-cl", file: "pathd.fish") == ["--max-clients", "--max-clients-per-user"])
        }
    }

    @Test("every option of the daemons' --help is in each of their completions",
          arguments: [("pathd", 17), ("pathd-probe", 4)])
    func daemonCompletionsAreComplete(program: String, minimum: Int) throws {
        let options = UsageText(try Command.check(BuiltProduct.url(program), ["--help"])).longOptions
        #expect(options.count >= minimum, "\(options)")
        for file in ["\(program).bash", "_\(program)", "\(program).fish"] {
            let text = try Repository.read("packaging/completions/\(file)")
            for option in options {
                let spelled = file.hasSuffix(".fish") ? "-l \(option.dropFirst(2))" : option
                #expect(text.contains(spelled), "\(option) is missing from \(file)")
            }
        }
    }

    /// What bash's programmable completion offers for `words`, the last one being completed.
    private static func bash(_ words: [String], file: String = "pathctl.bash") throws -> [String] {
        let script = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            $(complete -p "$1" | sed -E 's/.*-F ([^ ]+).*/\\1/') \
                "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Command.run(Command.find("bash"), ["--norc", "--noprofile", "-c", script, "bash",
                                                            Repository.path("packaging/completions/\(file)")] + words)
        guard result.termination == .exit(0), result.stderr.isEmpty else {
            throw HarnessError("bash completion of \(words): \(result.termination): \(result.stderr)")
        }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The candidates fish offers for the command line `line` (descriptions dropped).
    private static func fish(_ line: String, file: String = "pathctl.fish") throws -> [String] {
        let result = try Command.run(Command.find("fish"),
                                     ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]",
                                      Repository.path("packaging/completions/\(file)"), line])
        guard result.termination == .exit(0), result.stderr.isEmpty else {
            throw HarnessError("fish completion of \(line): \(result.termination): \(result.stderr)")
        }
        return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
    }

    private static func has(_ program: String) -> Bool {
        do {
            _ = try Command.find(program)
            return true
        } catch {
            return false
        }
    }
}
