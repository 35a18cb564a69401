// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import ConnectivityCheck
import Glibc
import PathModel
import PathConfiguration
import PathProtocol
import ServiceSupport

/// pathd-probe: the connectivity check kept apart from pathd (docs/ARCHITECTURE.md, "The
/// connectivity check"). Wiring only: the command line, the configuration's
/// [Connectivity] section, libcurl, signals.

// Before any thread exists, as in pathd: SIGTERM, SIGINT and SIGHUP stay pending until
// the main thread takes them (HandledSignals).
let signalBlockError = HandledSignals.block()
let log = Logger(journalPrefixes: Logger.stderrIsJournal)

func fail(_ message: String, status: Int32) -> Never {
    log.error("pathd-probe: \(message)")
    exit(status)
}

let options: ProbeOptions
do {
    switch try ProbeOptions.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        print(ProbeOptions.usage)
        exit(0)
    case .version:
        print("pathd-probe \(DaemonVersion.current) (protocol \(ProtocolVersion.current))")
        exit(0)
    case .completions(let shell):
        print(ProbeOptions.table.completion(for: shell), terminator: "")
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    fail("\(error)\nTry 'pathd-probe --help'.", status: 2)
}

/// The [Connectivity] section of the files, or nil (with the errors logged) when they are invalid.
func loadSettings() -> ConnectivitySettings? {
    let (result, _) = options.configurationFiles.load()
    for diagnostic in result.diagnostics {
        log.log(diagnostic.severity == .error ? .error : .warning, diagnostic.description)
    }
    return result.isValid ? result.configuration.connectivity : nil
}

func describe(_ settings: ConnectivitySettings) -> String {
    guard let url = settings.url else {
        return "checking is not configured ([Connectivity] URL= is empty): nothing will be contacted"
    }
    return "checking \(url) every \(TimeSpan.render(settings.interval)) (timeout \(TimeSpan.render(settings.timeout)))"
}

if let signalBlockError { fail("cannot block SIGTERM, SIGINT and SIGHUP: \(signalBlockError)", status: 1) }
guard let settings = loadSettings() else {
    fail("the configuration is invalid; not starting (see pathd --check-config)", status: 1)
}
guard CurlFetcher.initialize() else { fail("curl_global_init failed", status: 1) }
// A report to a pathd that went away must not kill the probe.
signal(SIGPIPE, SIG_IGN)

log.info("pathd-probe \(DaemonVersion.current) starting: \(describe(settings))")
let probe = ConnectivityProbe(settings: settings, socketPath: options.socketPath, fetcher: CurlFetcher(), log: log)
probe.queue.async { probe.start() }
HandledSignals.receive(log: log) { number in
    guard number == SIGHUP else {
        log.info("received \(HandledSignals.name(number)); stopping")
        probe.cancel()
        exit(0)
    }
    guard let next = loadSettings() else {
        log.error("configuration not reloaded: it is invalid; checking on with the running one")
        return
    }
    log.info("configuration reloaded: \(describe(next))")
    probe.queue.async { probe.update(next) }
}
