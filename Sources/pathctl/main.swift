// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import Glibc

/// pathctl: ask pathd about the network path. Wiring only: the command line is
/// `PathctlCommandLine`, read by `Commands.table`, whose commands are the verbs.

do throws(CommandError) {
    let command: PathctlCommand
    do throws(UsageError) {
        command = try PathctlCommandLine.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        throw CommandError.usage(error.description)
    }
    switch command {
    case .help:
        writeOut(PathctlCommandLine.usage)
        exit(PathctlExitStatus.success.rawValue)
    case .version(let socketPath):
        exit(VersionVerb.run(socketPath: socketPath).rawValue)
    case .completions(let shell):
        writeOut(Commands.table.completion(for: shell))
        exit(PathctlExitStatus.success.rawValue)
    case .run(let verb, let global):
        exit(try verb.run(global).rawValue)
    }
} catch {
    writeErrorLine("pathctl: \(error.message)")
    if error.exitStatus == .usage { writeErrorLine("Try 'pathctl --help'.") }
    exit(error.exitStatus.rawValue)
}
