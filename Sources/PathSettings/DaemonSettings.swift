// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The `[Daemon]` section: how the daemon runs. Every key has a built-in default,
/// written here and, for the reader, in pathd.conf(5) (a test holds the page to this
/// table; pathd(8) points there); `DaemonSettings.keys` is the one table of the keys
/// (pathd derives its flags from it), how they parse and print, and whether a reload
/// applies them.
public struct DaemonSettings: Hashable, Sendable, ConfigurationSection {
    /// `Socket=`: where to listen; nil for the per-user default (`SocketPath.defaultPath`).
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
    /// `MaxRoutesPerUser=`: route subscriptions one user other than root and pathd's own
    /// may hold across its connections. Each costs a kernel lookup at every change of the
    /// kernel's state; without it one user's 128 connections × 64 would be 8,192.
    public var maximumRoutesPerUser = 256
    /// `ClientQueueLimit=`: bytes of path and resync lines queued for one client before
    /// it counts as not reading and is disconnected (path lines collapse first, so only
    /// a stuck reader gets there). Replies stop the client's requests at half of it.
    public var clientQueueLimitBytes = 256 << 10
    /// `ReceiveBuffer=`: bytes requested for the netlink event socket. 8 MiB lost no event
    /// of a 1M-route flood (docs/KERNEL.md, "Toolchain and kernel facts").
    public var receiveBufferBytes = 8 << 20
    /// `ResolvConf=`: the resolver configuration watched for nameservers.
    public var resolvConfPath = "/etc/resolv.conf"
    /// `UpstreamResolvConf=`: systemd-resolved's own resolv.conf, naming its upstream
    /// servers; read (and watched) when `ResolvConf=` names only the resolved stub.
    public var upstreamResolvConfPath = "/run/systemd/resolve/resolv.conf"
    /// `LogLevel=`.
    public var logLevel = LogLevel.standard
    /// `MetricsFile=`: where to write the metrics for node_exporter's textfile
    /// collector; nil (the default) writes none.
    public var metricsFilePath: String?
    /// `HistorySize=`: how many entries (path changes, start and stop marks) the history keeps.
    public var historySize = 1000
    /// `NetworkKeyFile=`: a file holding a fleet's 128-bit ID, from which the key of
    /// network IDs is derived (`NetworkKey`); nil for the machine ID (`/etc/machine-id`).
    public var networkKeyFilePath: String?
    /// `ResolveGateways=`: whether pathd asks the kernel to resolve a gateway whose
    /// neighbour entry is not confirmed on the present carrier (RTM_NEWNEIGH with
    /// NTF_USE: the ARP request or neighbour solicitation a first packet would cause;
    /// pathd sends no datagram). Needs CAP_NET_ADMIN; without it the kernel refuses and
    /// traffic resolves the gateway instead (docs/ARCHITECTURE.md, "Network identity").
    public var resolvesGateways = true

    public init() {}

    /// `LookupIPv4=` and `LookupIPv6=` together.
    public var lookupDestinations: LookupDestinations { LookupDestinations(ipv4: lookupIPv4, ipv6: lookupIPv6) }

    public static let sectionName = "Daemon"
    public static var defaults: DaemonSettings { DaemonSettings() }

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
}

/// One `[Daemon]` key.
public typealias DaemonKey = ConfigurationKey<DaemonSettings>

extension DaemonSettings {
    /// Every `[Daemon]` key, in the order pathd.conf(5) and `--check-config` list them.
    public static let keys: [DaemonKey] = [
        DaemonKey("Socket", .path, range: "an absolute path of at most \(SocketPath.maximumBytes) bytes",
                  "the Unix socket to listen on when not socket-activated; empty: \(SocketPath.defaultInWords)",
                  parse: { settings, value in
                      if let expectation = SocketPath.expectation(for: value, absolute: true) {
                          return .invalid(expectation: expectation)
                      }
                      settings.socketPath = value
                      return .set
                  },
                  reset: { $0.socketPath = nil },
                  print: { $0.socketPath ?? "" }).meaningWhenEmpty(SocketPath.defaultInWords),
        address("LookupIPv4", \.lookupIPv4, family: .ipv4,
                "destination of the IPv4 route lookup (no packet is sent): a unicast address, not loopback, "
                    + "link-local, multicast, broadcast or unspecified"),
        address("LookupIPv6", \.lookupIPv6, family: .ipv6,
                "destination of the IPv6 route lookup (no packet is sent): a unicast address, not loopback, "
                    + "link-local, multicast, IPv4-mapped or unspecified"),
        count("MaxClients", \.maximumClients, in: maximumClientsRange,
              "clients served at once; the last 1 in 32 are kept for root and pathd's own user"),
        count("MaxClientsPerUser", \.maximumClientsPerUser, in: maximumClientsRange,
              "connections one user other than root and pathd's own may hold"),
        count("MaxSubscriptionsPerClient", \.maximumSubscriptionsPerClient, in: maximumSubscriptionsRange,
              "subscriptions one connection may hold"),
        count("MaxRoutesPerUser", \.maximumRoutesPerUser, in: maximumSubscriptionsRange,
              "route subscriptions one user other than root and pathd's own may hold across its connections"),
        size("ClientQueueLimit", \.clientQueueLimitBytes, in: clientQueueLimitRange, isReloadable: true,
             "unread path and resync bytes before a client is disconnected"),
        size("ReceiveBuffer", \.receiveBufferBytes, in: receiveBufferRange, isReloadable: false,
             "netlink receive buffer; without CAP_NET_ADMIN the kernel caps it at net.core.rmem_max"),
        file("ResolvConf", \.resolvConfPath, "the resolver configuration watched for nameservers"),
        file("UpstreamResolvConf", \.upstreamResolvConfPath,
             "systemd-resolved's upstream servers, read when ResolvConf= names only its stub 127.0.0.53"),
        DaemonKey("LogLevel", .level, range: LogLevel.allCases.map(\.rawValue).joined(separator: ", "),
                  "log threshold",
                  parse: { settings, value in
                      guard let level = LogLevel(rawValue: value.lowercased()) else {
                          return .invalid(expectation: LogLevel.allCases.map(\.rawValue).joined(separator: ", "))
                      }
                      settings.logLevel = level
                      return .set
                  },
                  reset: { $0.logLevel = DaemonSettings().logLevel },
                  print: { $0.logLevel.rawValue }),
        path("MetricsFile", \.metricsFilePath, maximumBytes: maximumFilePathBytes,
             "write the metrics here for node_exporter's textfile collector; empty: no file")
            .noting("Under pathd.service only /run/pathd-metrics/ is writable: /run/pathd-metrics/pathd.prom, "
                + "linked into /var/lib/prometheus/node-exporter/ (pathd(8), METRICS)."),
        count("HistorySize", \.historySize, in: historySizeRange, isReloadable: false,
              "entries the path history keeps"),
        path("NetworkKeyFile", \.networkKeyFilePath, maximumBytes: maximumFilePathBytes, isReloadable: true,
             "a file holding a 128-bit ID (as systemd-id128 new prints it) shared by a site's hosts, from which "
                 + "network IDs are keyed; empty: the machine ID (\(NetworkKey.machineIDPath))"),
        flag("ResolveGateways", \.resolvesGateways,
             "ask the kernel to resolve a gateway not confirmed since the carrier came back (needs CAP_NET_ADMIN; "
                 + "pathd sends no packet itself)"),
    ]

    /// A boolean, read when the process starts.
    private static func flag(_ name: String, _ setting: WritableKeyPath<DaemonSettings, Bool> & Sendable,
                             _ summary: String) -> DaemonKey {
        DaemonKey(name, .bool, range: SettingText.booleanWords, summary,
                  parse: { settings, value in
                      guard let flag = SettingText.boolean(value) else {
                          return .invalid(expectation: "a boolean (\(SettingText.booleanWords))")
                      }
                      settings[keyPath: setting] = flag
                      return .set
                  },
                  reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                  print: { SettingText.word(for: $0[keyPath: setting]) })
    }

    private static func path(_ name: String, _ setting: WritableKeyPath<DaemonSettings, String?> & Sendable,
                             maximumBytes: Int, isReloadable: Bool = false, _ summary: String) -> DaemonKey {
        DaemonKey(name, .path, range: "an absolute path of at most \(maximumBytes) bytes", isReloadable: isReloadable,
                  summary,
                  parse: { settings, value in
                      guard value.hasPrefix("/"), value.utf8.count <= maximumBytes else {
                          return .invalid(expectation: "an absolute path of at most \(maximumBytes) bytes")
                      }
                      settings[keyPath: setting] = value
                      return .set
                  },
                  reset: { $0[keyPath: setting] = nil },
                  print: { $0[keyPath: setting] ?? "" })
    }

    /// An absolute file path, read at start (a change needs a restart).
    private static func file(_ name: String, _ setting: WritableKeyPath<DaemonSettings, String> & Sendable,
                             _ summary: String) -> DaemonKey {
        DaemonKey(name, .path, range: "an absolute path", summary,
                  parse: { settings, value in
                      guard value.hasPrefix("/") else { return .invalid(expectation: "an absolute path") }
                      settings[keyPath: setting] = value
                      return .set
                  },
                  reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                  print: { $0[keyPath: setting] })
    }

    /// A route lookup's destination: it stands for "the Internet", so an address whose
    /// route is this host, one link or a group (`IPAddress.notAnInternetHost`) would
    /// leave the path unsatisfied for good, or satisfied through `lo`.
    private static func address(_ name: String, _ setting: WritableKeyPath<DaemonSettings, IPAddress> & Sendable,
                                family: AddressFamily, _ summary: String) -> DaemonKey {
        let familyName = family == .ipv4 ? "IPv4" : "IPv6"
        let expectation = "an \(familyName) address"
        return DaemonKey(name, .address, range: expectation, summary,
                         parse: { settings, value in
                             guard let parsed = IPAddress(value), parsed.family == family else {
                                 return .invalid(expectation: expectation)
                             }
                             if let kind = parsed.notAnInternetHost {
                                 return .invalid(expectation: "a unicast \(familyName) address that stands for the "
                                     + "Internet, not \(kind)")
                             }
                             settings[keyPath: setting] = parsed
                             return .set
                         },
                         reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                         print: { "\($0[keyPath: setting])" })
    }

    /// A decimal count in `range` (connection and subscription limits apply to what is
    /// accepted or subscribed after a reload).
    private static func count(_ name: String, _ setting: WritableKeyPath<DaemonSettings, Int> & Sendable,
                              in range: ClosedRange<Int>, isReloadable: Bool = true, _ summary: String) -> DaemonKey {
        let expectation = "a number from \(range.lowerBound) to \(range.upperBound)"
        return DaemonKey(name, .count, range: "\(range.lowerBound) to \(range.upperBound)", isReloadable: isReloadable,
                         summary,
                         parse: { settings, value in
                             guard value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber),
                                   let number = Int(value), range.contains(number) else {
                                 return .invalid(expectation: expectation)
                             }
                             settings[keyPath: setting] = number
                             return .set
                         },
                         reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                         print: { String($0[keyPath: setting]) })
    }

    /// A byte size (`4K`, `8M`) in `range`.
    private static func size(_ name: String, _ setting: WritableKeyPath<DaemonSettings, Int> & Sendable,
                             in range: ClosedRange<Int>, isReloadable: Bool, _ summary: String) -> DaemonKey {
        let bounds = SettingText.documentedSize(range.lowerBound) + " to "
            + SettingText.documentedSize(range.upperBound)
        return DaemonKey(name, .size, range: bounds, isReloadable: isReloadable, summary,
                         parse: { settings, value in
                             guard let bytes = SettingText.size(value), range.contains(bytes) else {
                                 return .invalid(
                                     expectation: "a size from \(bounds) (bytes, or with a K, M or G suffix)")
                             }
                             settings[keyPath: setting] = bytes
                             return .set
                         },
                         reset: { $0[keyPath: setting] = DaemonSettings()[keyPath: setting] },
                         print: { String($0[keyPath: setting]) },
                         document: { SettingText.documentedSize($0[keyPath: setting]) })
    }
}
