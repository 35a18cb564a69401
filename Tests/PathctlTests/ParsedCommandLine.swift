// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
@testable import pathctl

/// The verb a pathctl command line names, with its options read; throws its usage error.
func parsed<V: Verb>(_ type: V.Type, _ arguments: String...) throws -> V {
    guard case .run(let verb, _) = try PathctlCommandLine.parse(arguments) else {
        throw UsageError("not a command: \(arguments)")
    }
    guard let typed = verb as? V else { throw UsageError("not \(V.command.name): \(arguments)") }
    return typed
}

/// The global options of a pathctl command line that names a command.
func global(_ arguments: String...) throws -> GlobalOptions {
    guard case .run(_, let global) = try PathctlCommandLine.parse(arguments) else {
        throw UsageError("not a command: \(arguments)")
    }
    return global
}

/// The usage error a pathctl command line gets, or nil when it parses.
func usageError(_ arguments: String...) -> String? {
    do {
        _ = try PathctlCommandLine.parse(arguments)
        return nil
    } catch {
        return error.description
    }
}

extension PathctlCommand {
    /// What the command line asks for, as a word to compare: "help", "version /tmp/x.sock",
    /// "completions zsh", or the command's name.
    var word: String {
        switch self {
        case .help: "help"
        case .version(let socketPath): "version" + (socketPath.map { " \($0)" } ?? "")
        case .completions(let shell): "completions \(shell.rawValue)"
        case .run(let verb, _): type(of: verb).command.name
        }
    }
}
