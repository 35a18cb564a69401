import Dispatch
import Glibc
import Netlink
import PathDaemon
import PathModel
import PathProtocol

/// Entry point: parse the command line, wire the netlink monitor into the service,
/// and serve until SIGTERM or SIGINT. Everything after start-up runs on `stateQueue`.

func fail(_ message: String, status: Int32) -> Never {
    Logger(journalPrefixes: false).error("pathd: \(message)")
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
    case .run(let parsed):
        options = parsed
    }
} catch {
    fail("\(error)\nTry 'pathd --help'.", status: 2)
}

let log = Logger(threshold: options.logLevel, journalPrefixes: ProcessEnvironment.underJournal)
ProcessEnvironment.prepare(log: log)

let listener: UnixListener
do {
    if let activated = try UnixListener.fromActivation() {
        listener = activated
    } else {
        guard let path = options.socketPath
            ?? SocketLocation.defaultPath(userID: getuid(), environment: ProcessEnvironment.variables) else {
            fail("XDG_RUNTIME_DIR is not set; give the socket path with --socket PATH", status: 2)
        }
        listener = try UnixListener.bind(path: path)
    }
} catch {
    fail("\(error)", status: 1)
}

let daemon = Daemon(options: options, listener: listener, log: log)
daemon.launch()
withExtendedLifetime(daemon) {
    dispatchMain()
}
