import PathDaemon
import PathEngine
import SystemCalls
import PathModel
import PathProtocol

/// pathd's command line. Parsed by hand: swift-argument-parser is not in the toolchain.
/// Each daemon flag is optional: when given, it overrides the configuration file's key,
/// and takes exactly what that key takes (both go through `DaemonSettings.set`).
struct Options {
    /// `--config`: the main file; nil for the default, which may be absent.
    var configPath: String?
    /// The `[Daemon]` keys the flags set, in command-line order, each already checked.
    private(set) var overrides: [(key: String, value: String)] = []

    /// Each daemon flag and the `[Daemon]` key it overrides (`DaemonSettings.keys`).
    static let daemonFlags: [String: String] = Dictionary(uniqueKeysWithValues: DaemonSettings.keys.map { ($0.flag, $0.name) })

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
          --socket PATH           listen on PATH, an absolute path (default:
                                  /run/pathd/pathd.sock for root,
                                  $XDG_RUNTIME_DIR/pathd/pathd.sock for other users)
          --lookup-ipv4 ADDR      destination of the IPv4 route lookup (default 203.0.113.1;
                                  a lookup sends no packet)
          --lookup-ipv6 ADDR      destination of the IPv6 route lookup (default 2001:db8::1)
          --receive-buffer SIZE   netlink receive buffer, in bytes or with K, M or G
                                  (default 8M; without CAP_NET_ADMIN the kernel caps
                                  it at net.core.rmem_max)
          --resolv-conf PATH      resolver configuration to watch (default /etc/resolv.conf)
          --upstream-resolv-conf PATH
                                  systemd-resolved's upstream servers, read when the
                                  resolver configuration names only its stub 127.0.0.53
                                  (default /run/systemd/resolve/resolv.conf)
          --max-clients N         clients served at once (default 1024; the last 1 in 32
                                  are kept for root and pathd's own user)
          --max-clients-per-user N
                                  connections one other user may hold (default 128)
          --max-subscriptions-per-client N
                                  subscriptions one connection may hold (default 64)
          --client-queue-limit SIZE
                                  unread path and resync bytes before a client is
                                  disconnected (default 256K)
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
        for (key, value) in overrides {
            // Checked by `parse` against the same function; it cannot fail here.
            let outcome = result.set(key, to: value)
            precondition(outcome == .set, "\(key)=\(value) passed parse but not set: \(outcome)")
        }
        return result
    }

    /// `--log-level`, for the messages logged before the files are read (or when they
    /// are invalid).
    var logLevel: LogLevel? {
        overrides.contains { $0.key == "LogLevel" } ? applied(to: DaemonSettings()).logLevel : nil
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
            if let key = daemonFlags[flag] {
                let text = try value(for: flag)
                var probe = DaemonSettings()
                if case .invalid(let expectation) = probe.set(key, to: text) {
                    throw UsageError("\(flag) expects \(expectation), got \"\(text)\"")
                }
                options.overrides.append((key, text))
                continue
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
