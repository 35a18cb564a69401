import PathDaemon
import PathModel
import PathProtocol

/// pathd's command line. Parsed by hand: swift-argument-parser is not in the toolchain.
/// Each daemon flag is optional: when given, it overrides the configuration file's key.
struct Options {
    /// `--config`: the main file; nil for the default, which may be absent.
    var configPath: String?
    var socketPath: String?
    var lookupIPv4: IPAddress?
    var lookupIPv6: IPAddress?
    var receiveBufferBytes: Int?
    var resolvConfPath: String?
    var maximumClients: Int?
    var logLevel: LogLevel?

    enum Action {
        case run(Options)
        case checkConfig(Options)
        case help
        case version
    }

    static let usage = """
        Usage: pathd [OPTIONS]
               pathd --check-config [--config PATH]

        Watches the kernel's links, addresses, routes and rules over rtnetlink and
        publishes whether a usable network path exists, as JSON lines on a Unix socket.
        Runs in the foreground; logs one line per path change to stderr. SIGHUP reloads
        the configuration. Options given here override the configuration file's keys.

        Options:
          --config PATH           main configuration file (default /etc/pathd/pathd.conf,
                                  optional); drop-ins are read from PATH.d/*.conf
          --check-config          validate the configuration, print it and exit
          --socket PATH           listen on PATH (default: /run/pathd/pathd.sock for root,
                                  $XDG_RUNTIME_DIR/pathd/pathd.sock for other users)
          --lookup-ipv4 ADDR      destination of the IPv4 route lookup (default 203.0.113.1;
                                  a lookup sends no packet)
          --lookup-ipv6 ADDR      destination of the IPv6 route lookup (default 2001:db8::1)
          --receive-buffer SIZE   netlink receive buffer, bytes or with K/M/G (default 8M; without
                                  CAP_NET_ADMIN the kernel caps it at net.core.rmem_max)
          --resolv-conf PATH      resolver configuration to watch (default /etc/resolv.conf)
          --max-clients N         clients served at once (default 1024)
          --log-level LEVEL       error, warning, notice, info or debug (default info)
          -h, --help              show this help and exit
          --version               show the version and exit

        Exit status: 0 after SIGTERM or SIGINT (or a valid --check-config), 1 on a
        runtime error or an invalid configuration, 2 on a usage error. See pathd(8)
        and pathd.conf(5).
        """

    /// The files to read: --config (which must then exist) or the default (which may not).
    var configurationFiles: ConfigurationFiles {
        if let configPath { return ConfigurationFiles(mainPath: configPath, isMainRequired: true) }
        return ConfigurationFiles()
    }

    /// The configuration file's `[Daemon]` settings with the flags given here on top.
    func applied(to settings: DaemonSettings) -> DaemonSettings {
        var result = settings
        if let socketPath { result.socketPath = socketPath }
        if let lookupIPv4 { result.lookupIPv4 = lookupIPv4 }
        if let lookupIPv6 { result.lookupIPv6 = lookupIPv6 }
        if let receiveBufferBytes { result.receiveBufferBytes = receiveBufferBytes }
        if let resolvConfPath { result.resolvConfPath = resolvConfPath }
        if let maximumClients { result.maximumClients = maximumClients }
        if let logLevel { result.logLevel = logLevel }
        return result
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        var options = Options()
        var checkConfig = false
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let next = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let argument = remaining.popFirst() {
            var flag = argument
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                remaining.insert(String(argument[argument.index(after: equals)...]), at: remaining.startIndex)
            }
            switch flag {
            case "-h", "--help":
                return .help
            case "--version":
                return .version
            case "--check-config":
                checkConfig = true
            case "--config":
                let path = try value(for: flag)
                guard !path.isEmpty else { throw UsageError("--config needs a path") }
                options.configPath = path
            case "--socket":
                options.socketPath = try value(for: flag)
            case "--lookup-ipv4":
                let text = try value(for: flag)
                guard let address = IPAddress(text), address.family == .ipv4 else {
                    throw UsageError("--lookup-ipv4 expects an IPv4 address, got \"\(text)\"")
                }
                options.lookupIPv4 = address
            case "--lookup-ipv6":
                let text = try value(for: flag)
                guard let address = IPAddress(text), address.family == .ipv6 else {
                    throw UsageError("--lookup-ipv6 expects an IPv6 address, got \"\(text)\"")
                }
                options.lookupIPv6 = address
            case "--receive-buffer":
                let text = try value(for: flag)
                guard let bytes = Configuration.parseSize(text), DaemonSettings.receiveBufferRange.contains(bytes) else {
                    throw UsageError("--receive-buffer expects a size from 4K to 1G (bytes, or with a K, M or G suffix), got \"\(text)\"")
                }
                options.receiveBufferBytes = bytes
            case "--resolv-conf":
                options.resolvConfPath = try value(for: flag)
            case "--max-clients":
                let text = try value(for: flag)
                let range = DaemonSettings.maximumClientsRange
                guard let count = Int(text), range.contains(count) else {
                    throw UsageError("--max-clients expects a number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
                }
                options.maximumClients = count
            case "--log-level":
                let text = try value(for: flag)
                guard let level = LogLevel(rawValue: text) else {
                    throw UsageError("--log-level expects error, warning, notice, info or debug, got \"\(text)\"")
                }
                options.logLevel = level
            default:
                throw UsageError("unknown argument \"\(argument)\"")
            }
        }
        return checkConfig ? .checkConfig(options) : .run(options)
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
