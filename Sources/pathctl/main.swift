import CommandLineOptions
import Glibc

/// pathctl: ask pathd about the network path. Wiring only: the command line is
/// CommandLineOptions' `PathctlCommandLine`, each verb a type of its own.

func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
    switch options.verb {
    case .status: try StatusVerb.run(options)
    case .monitor: try MonitorVerb.run(options)
    case .wait: try WaitVerb.run(options)
    case .interfaces: try InterfacesVerb.run(options)
    case .route: try RouteVerb.run(options)
    case .reload: try ReloadVerb.run(options)
    case .metrics: try MetricsVerb.run(options)
    case .history: try HistoryVerb.run(options)
    }
}

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
    case .run(let options):
        exit(try run(options).rawValue)
    }
} catch {
    let hint = error.exitStatus == .usage ? "\nTry 'pathctl --help'." : ""
    writeError("pathctl: \(error.message)\(hint)\n")
    exit(error.exitStatus.rawValue)
}
