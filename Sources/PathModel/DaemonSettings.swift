/// The `[Daemon]` section: how the daemon runs. Every key has a built-in default,
/// written here and nowhere else; `DaemonSettings.keys` is the one table of the keys,
/// their pathd flags, how they parse and print, and whether a reload applies them.
public struct DaemonSettings: Hashable, Sendable {
    /// `Socket=`: where to listen; nil for the per-user default (/run/pathd/pathd.sock
    /// for root, $XDG_RUNTIME_DIR/pathd/pathd.sock otherwise).
    public var socketPath: String?
    /// `LookupIPv4=`: destination of the IPv4 route lookup (no packet is sent).
    public var lookupIPv4 = LookupDestinations.standard.ipv4
    /// `LookupIPv6=`: destination of the IPv6 route lookup.
    public var lookupIPv6 = LookupDestinations.standard.ipv6
    /// `MaxClients=`: connections served at once.
    public var maximumClients = 1024
    /// `MaxClientsPerUser=`: connections one user other than root and pathd's own may
    /// hold; the last 1/32 of `MaxClients=` are kept for those two.
    public var maximumClientsPerUser = 128
    /// `MaxSubscriptionsPerClient=`: subscriptions one connection may hold.
    public var maximumSubscriptionsPerClient = 64
    /// `ClientQueueLimit=`: bytes of path and resync lines queued for one client before
    /// it counts as not reading and is disconnected (path lines collapse first, so only
    /// a stuck reader gets there). Replies stop the client's requests at half of it.
    public var clientQueueLimitBytes = 256 << 10
    /// `ReceiveBuffer=`: bytes requested for the netlink event socket.
    public var receiveBufferBytes = 8 << 20
    /// `ResolvConf=`: the resolver configuration watched for nameservers.
    public var resolvConfPath = "/etc/resolv.conf"
    /// `UpstreamResolvConf=`: systemd-resolved's own resolv.conf, naming its upstream
    /// servers; read (and watched) when `ResolvConf=` names only the resolved stub.
    public var upstreamResolvConfPath = "/run/systemd/resolve/resolv.conf"
    /// `LogLevel=`.
    public var logLevel = LogLevel.info
    /// `MetricsFile=`: where to write the metrics for node_exporter's textfile
    /// collector; nil (the default) writes none.
    public var metricsFilePath: String?
    /// `HistorySize=`: how many entries (path changes, start and stop marks) the history keeps.
    public var historySize = 1000

    public init() {}

    /// `LookupIPv4=` and `LookupIPv6=` together.
    public var lookupDestinations: LookupDestinations { LookupDestinations(ipv4: lookupIPv4, ipv6: lookupIPv6) }

    /// These settings with only the keys a reload applies taken from `next`; the rest
    /// stay as the process started with them (a change to them needs a restart).
    public func reloaded(from next: DaemonSettings) -> DaemonSettings {
        var result = self
        for key in Self.keys where key.isReloadable {
            let outcome = result.set(key.name, to: key.render(next))
            assert(outcome == .set, "\(key.name) does not parse what it renders")
        }
        return result
    }

    public static let maximumClientsRange = 1...1_000_000
    public static let maximumSubscriptionsRange = 1...65536
    /// The history file holds at most twice this many lines of about 300 bytes.
    public static let historySizeRange = 1...100_000
    /// PATH_MAX, terminating NUL excluded.
    public static let maximumFilePathBytes = 4095
    public static let receiveBufferRange = 4096...(1 << 30)
    /// A path line is about 300 bytes; below 4K even one resync could not wait.
    public static let clientQueueLimitRange = 4096...(1 << 30)
    /// `sun_path` holds 108 bytes including the terminating NUL.
    public static let maximumSocketPathBytes = 107

    /// Sets one `[Daemon]` key from its text as pathd.conf(5) describes; an empty value
    /// restores the default. Changes nothing unless the outcome is `.set`. The file and
    /// pathd's flags both come through here, so they take the same values.
    public mutating func set(_ key: String, to value: String) -> DaemonSettingOutcome {
        guard let entry = Self.keys.first(where: { $0.name == key }) else { return .unknownKey }
        if value.isEmpty {
            entry.reset(&self)
            return .set
        }
        return entry.parse(&self, value)
    }
}

/// What setting one `[Daemon]` key came to.
public enum DaemonSettingOutcome: Equatable, Sendable {
    case set
    /// The value is not what the key takes; `expectation` says what it takes.
    case invalid(expectation: String)
    case unknownKey
}

/// One `[Daemon]` key: its name, the pathd flag that overrides it, whether a reload
/// applies it, and how it parses and prints.
public struct DaemonKey: Sendable {
    public let name: String
    /// The pathd command-line flag taking the same values.
    public let flag: String
    /// What the flag's value is called in `pathd --help` (`PATH`).
    public let valueName: String
    /// The flag's line(s) in `pathd --help`.
    public let help: String
    /// Applied by a reload; otherwise a change needs a restart (and a reload says so).
    public let isReloadable: Bool
    let parse: @Sendable (inout DaemonSettings, String) -> DaemonSettingOutcome
    let reset: @Sendable (inout DaemonSettings) -> Void
    public let render: @Sendable (DaemonSettings) -> String
}

extension DaemonSettings {
    /// Every `[Daemon]` key, in the order pathd.conf(5) and `--check-config` list them.
    public static let keys: [DaemonKey] = [
        path("Socket", flag: "--socket", \.socketPath, maximumBytes: maximumSocketPathBytes, help: """
            listen on PATH, an absolute path (default:
            /run/pathd/pathd.sock for root,
            $XDG_RUNTIME_DIR/pathd/pathd.sock for other users)
            """),
        address("LookupIPv4", flag: "--lookup-ipv4", \.lookupIPv4, family: .ipv4, help: """
            destination of the IPv4 route lookup (default 203.0.113.1;
            a lookup sends no packet)
            """),
        address("LookupIPv6", flag: "--lookup-ipv6", \.lookupIPv6, family: .ipv6,
                help: "destination of the IPv6 route lookup (default 2001:db8::1)"),
        count("MaxClients", flag: "--max-clients", \.maximumClients, in: maximumClientsRange, help: """
            clients served at once (default 1024; the last 1 in 32
            are kept for root and pathd's own user)
            """),
        count("MaxClientsPerUser", flag: "--max-clients-per-user", \.maximumClientsPerUser, in: maximumClientsRange,
              help: "connections one other user may hold (default 128)"),
        count("MaxSubscriptionsPerClient", flag: "--max-subscriptions-per-client", \.maximumSubscriptionsPerClient,
              in: maximumSubscriptionsRange, help: "subscriptions one connection may hold (default 64)"),
        size("ClientQueueLimit", flag: "--client-queue-limit", \.clientQueueLimitBytes, in: clientQueueLimitRange,
             isReloadable: true, help: """
            unread path and resync bytes before a client is
            disconnected (default 256K)
            """),
        size("ReceiveBuffer", flag: "--receive-buffer", \.receiveBufferBytes, in: receiveBufferRange, isReloadable: false,
             help: """
            netlink receive buffer, in bytes or with K, M or G
            (default 8M; without CAP_NET_ADMIN the kernel caps
            it at net.core.rmem_max)
            """),
        file("ResolvConf", flag: "--resolv-conf", \.resolvConfPath,
             help: "resolver configuration to watch (default /etc/resolv.conf)"),
        file("UpstreamResolvConf", flag: "--upstream-resolv-conf", \.upstreamResolvConfPath, help: """
            systemd-resolved's upstream servers, read when the
            resolver configuration names only its stub 127.0.0.53
            (default /run/systemd/resolve/resolv.conf)
            """),
        DaemonKey(name: "LogLevel", flag: "--log-level", valueName: "LEVEL",
                  help: "error, warning, notice, info or debug (default info)", isReloadable: false,
                  parse: { settings, value in
                      guard let level = LogLevel(rawValue: value.lowercased()) else {
                          return .invalid(expectation: LogLevel.allCases.map(\.rawValue).joined(separator: ", "))
                      }
                      settings.logLevel = level
                      return .set
                  },
                  reset: { $0.logLevel = DaemonSettings().logLevel },
                  render: { $0.logLevel.rawValue }),
        path("MetricsFile", flag: "--metrics-file", \.metricsFilePath, maximumBytes: maximumFilePathBytes, help: """
            write the metrics to PATH for node_exporter's textfile
            collector, e.g. /run/pathd-metrics/pathd.prom
            (default: none)
            """),
        count("HistorySize", flag: "--history-size", \.historySize, in: historySizeRange, isReloadable: false,
              help: "path changes the history keeps (default 1000)"),
    ]

    private static func path(_ name: String, flag: String, _ setting: WritableKeyPath<DaemonSettings, String?> & Sendable,
                             maximumBytes: Int, help: String) -> DaemonKey {
        DaemonKey(name: name, flag: flag, valueName: "PATH", help: help, isReloadable: false,
                  parse: { settings, value in
                      guard value.hasPrefix("/"), value.utf8.count <= maximumBytes else {
                          return .invalid(expectation: "an absolute path of at most \(maximumBytes) bytes")
                      }
                      settings[keyPath: setting] = value
                      return .set
                  },
                  reset: { $0[keyPath: setting] = nil },
                  render: { $0[keyPath: setting] ?? "" })
    }

    /// An absolute file path, read at start (a change needs a restart).
    private static func file(_ name: String, flag: String, _ setting: WritableKeyPath<DaemonSettings, String> & Sendable,
                             help: String) -> DaemonKey {
        DaemonKey(name: name, flag: flag, valueName: "PATH", help: help, isReloadable: false,
                  parse: { settings, value in
                      guard value.hasPrefix("/") else { return .invalid(expectation: "an absolute path") }
                      settings[keyPath: setting] = value
                      return .set
                  },
                  reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                  render: { $0[keyPath: setting] })
    }

    private static func address(_ name: String, flag: String, _ setting: WritableKeyPath<DaemonSettings, IPAddress> & Sendable,
                                family: AddressFamily, help: String) -> DaemonKey {
        DaemonKey(name: name, flag: flag, valueName: "ADDR", help: help, isReloadable: false,
                  parse: { settings, value in
                      guard let parsed = IPAddress(value), parsed.family == family else {
                          return .invalid(expectation: family == .ipv4 ? "an IPv4 address" : "an IPv6 address")
                      }
                      settings[keyPath: setting] = parsed
                      return .set
                  },
                  reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                  render: { "\($0[keyPath: setting])" })
    }

    /// A decimal count in `range` (connection and subscription limits apply to what is
    /// accepted or subscribed after a reload).
    private static func count(_ name: String, flag: String, _ setting: WritableKeyPath<DaemonSettings, Int> & Sendable,
                              in range: ClosedRange<Int>, isReloadable: Bool = true, help: String) -> DaemonKey {
        DaemonKey(name: name, flag: flag, valueName: "N", help: help, isReloadable: isReloadable,
                  parse: { settings, value in
                      guard value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber),
                            let number = Int(value), range.contains(number) else {
                          return .invalid(expectation: "a number from \(range.lowerBound) to \(range.upperBound)")
                      }
                      settings[keyPath: setting] = number
                      return .set
                  },
                  reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                  render: { String($0[keyPath: setting]) })
    }

    /// A byte size (`4K`, `8M`) in `range`.
    private static func size(_ name: String, flag: String, _ setting: WritableKeyPath<DaemonSettings, Int> & Sendable,
                             in range: ClosedRange<Int>, isReloadable: Bool, help: String) -> DaemonKey {
        DaemonKey(name: name, flag: flag, valueName: "SIZE", help: help, isReloadable: isReloadable,
                  parse: { settings, value in
                      guard let bytes = Configuration.parseSize(value), range.contains(bytes) else {
                          return .invalid(expectation: "a size from 4K to 1G (bytes, or with a K, M or G suffix)")
                      }
                      settings[keyPath: setting] = bytes
                      return .set
                  },
                  reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                  render: { String($0[keyPath: setting]) })
    }
}
