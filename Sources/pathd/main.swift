// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import Dispatch
import Glibc
import PathDaemon
import PathConfiguration
import PathModel
import PathProtocol
import ServiceSupport

/// Entry point: parse the command line, read the configuration, wire the netlink
/// monitor into the service, and serve until SIGTERM or SIGINT. Everything after
/// start-up runs on `stateQueue`.

// First, before any thread exists: every thread inherits the mask, and a SIGTERM sent
// at any moment from here on stays pending until the main thread takes it with
// sigwaitinfo (HandledSignals.receive) instead of being lost.
let signalBlockError = HandledSignals.block()

/// Fatal start-up errors too carry the journal's priority prefix when stderr is the journal.
func fail(_ message: String, status: Int32) -> Never {
    Logger(journalPrefixes: Logger.stderrIsJournal).error("pathd: \(message)")
    exit(status)
}

let options: Options
do {
    switch try Options.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        print(Options.usage)
        exit(0)
    case .version:
        print("pathd \(DaemonVersion.current) (protocol \(ProtocolVersion.current))")
        exit(0)
    case .printExampleConfig:
        print(ExampleConfiguration.text, terminator: "")
        exit(0)
    case .completions(let shell):
        print(Options.table.completion(for: shell), terminator: "")
        exit(0)
    case .checkConfig(let parsed):
        exit(CheckConfig.run(parsed))
    case .run(let parsed):
        options = parsed
    }
} catch {
    fail("\(error)\nTry 'pathd --help'.", status: 2)
}

let (loaded, diagnostics) = DaemonConfiguration.load(options: options)
// Before the files are read, or when they are invalid: `--log-level`, else the default.
let level = loaded?.initial.daemon.logLevel ?? options.applied(to: DaemonSettings()).logLevel
let log = Logger(threshold: level, journalPrefixes: Logger.stderrIsJournal)
for diagnostic in diagnostics {
    log.log(diagnostic.severity == .error ? .error : .warning, diagnostic.description)
}
guard let configuration = loaded else {
    fail("the configuration is invalid; not starting (see pathd --check-config)", status: 1)
}
if let signalBlockError {
    fail("cannot block SIGTERM, SIGINT and SIGHUP: \(signalBlockError)", status: 1)
}
ProcessEnvironment.prepare(log: log)

let listener: UnixListener
do {
    if let activated = try UnixListener.fromActivation() {
        listener = activated
    } else {
        let path = try configuration.initial.daemon.socketPath ?? ProcessEnvironment.defaultSocketPath()
        listener = try UnixListener.bind(path: path)
    }
} catch {
    fail("\(error)", status: 1)
}

let daemon = Daemon(configuration: configuration, listener: listener, log: log)
daemon.launch()
daemon.receiveSignals()
