import Netlink
import PathDaemon
import PathModel
import PathProtocol

/// pathd's command line. Parsed by hand: swift-argument-parser is not in the toolchain.
struct Options {
    var socketPath: String?
    var lookupIPv4 = NetlinkConfiguration.defaultLookupDestinations[.ipv4]!
    var lookupIPv6 = NetlinkConfiguration.defaultLookupDestinations[.ipv6]!
    var receiveBufferBytes = 8 << 20
    var resolvConfPath = "/etc/resolv.conf"
    var maximumClients = 1024
    var logLevel = Logger.Level.info

    enum Action {
        case run(Options)
        case help
        case version
    }

    static let usage = """
        Usage: pathd [OPTIONS]

        Watches the kernel's links, addresses, routes and rules over rtnetlink and
        publishes whether a usable network path exists, as JSON lines on a Unix socket.
        Runs in the foreground; logs one line per path change to stderr.

        Options:
          --socket PATH           listen on PATH (default: /run/pathd/pathd.sock for root,
                                  $XDG_RUNTIME_DIR/pathd/pathd.sock for other users)
          --lookup-ipv4 ADDR      destination of the IPv4 route lookup (default 203.0.113.1;
                                  a lookup sends no packet)
          --lookup-ipv6 ADDR      destination of the IPv6 route lookup (default 2001:db8::1)
          --receive-buffer BYTES  netlink receive buffer (default 8388608; without
                                  CAP_NET_ADMIN the kernel caps it at net.core.rmem_max)
          --resolv-conf PATH      resolver configuration to watch (default /etc/resolv.conf)
          --max-clients N         clients served at once (default 1024)
          --log-level LEVEL       error, warning, notice, info or debug (default info)
          -h, --help              show this help and exit
          --version               show the version and exit

        Exit status: 0 after SIGTERM or SIGINT, 1 on a runtime error, 2 on a usage error.
        See pathd(8).
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        var options = Options()
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
                guard let bytes = Int(text), bytes >= 4096, bytes <= 1 << 30 else {
                    throw UsageError("--receive-buffer expects a byte count from 4096 to 1073741824, got \"\(text)\"")
                }
                options.receiveBufferBytes = bytes
            case "--resolv-conf":
                options.resolvConfPath = try value(for: flag)
            case "--max-clients":
                let text = try value(for: flag)
                guard let count = Int(text), count >= 1, count <= 1_000_000 else {
                    throw UsageError("--max-clients expects a number from 1 to 1000000, got \"\(text)\"")
                }
                options.maximumClients = count
            case "--log-level":
                let text = try value(for: flag)
                let levels: [String: Logger.Level] = ["error": .error, "warning": .warning, "notice": .notice,
                                                      "info": .info, "debug": .debug]
                guard let level = levels[text] else {
                    throw UsageError("--log-level expects error, warning, notice, info or debug, got \"\(text)\"")
                }
                options.logLevel = level
            default:
                throw UsageError("unknown argument \"\(argument)\"")
            }
        }
        return .run(options)
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
