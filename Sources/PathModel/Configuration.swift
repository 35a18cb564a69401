/// Log verbosity, as `LogLevel=` and `--log-level` name it.
public enum LogLevel: String, Hashable, Sendable, CaseIterable {
    case error
    case warning
    case notice
    case info
    case debug
}

/// The `[Daemon]` section: how the daemon runs. Every key has a built-in default.
public struct DaemonSettings: Hashable, Sendable {
    /// `Socket=`: where to listen; nil for the per-user default (/run/pathd/pathd.sock
    /// for root, $XDG_RUNTIME_DIR/pathd/pathd.sock otherwise). Needs a restart to change.
    public var socketPath: String?
    /// `LookupIPv4=`: destination of the IPv4 route lookup (no packet is sent).
    public var lookupIPv4 = LookupDestinations.ipv4
    /// `LookupIPv6=`: destination of the IPv6 route lookup.
    public var lookupIPv6 = LookupDestinations.ipv6
    /// `MaxClients=`: connections served at once.
    public var maximumClients = 1024
    /// `ClientQueueLimit=`: bytes queued for one client before it counts as not reading
    /// and is disconnected (path lines collapse first, so only a stuck reader gets there).
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

    public init() {}

    public static let maximumClientsRange = 1...1_000_000
    public static let receiveBufferRange = 4096...(1 << 30)
    /// A path line is about 300 bytes; below 4K even one resync could not wait.
    public static let clientQueueLimitRange = 4096...(1 << 30)
    /// `sun_path` holds 108 bytes including the terminating NUL.
    public static let maximumSocketPathBytes = 107
}

/// Everything pathd reads from pathd.conf and its drop-ins.
public struct Configuration: Hashable, Sendable {
    public var daemon: DaemonSettings
    public var policy: Policy

    public init(daemon: DaemonSettings = DaemonSettings(), policy: Policy = .standard) {
        self.daemon = daemon
        self.policy = policy
    }

    /// No file at all: every default, cellular expensive.
    public static let builtIn = Configuration()

    /// Past this many `[Interface]` sections (over all files) the configuration is invalid:
    /// every evaluation walks them, and no real host needs more.
    public static let maximumInterfaceSections = 1024
}

/// One file's text and the name its diagnostics carry (the path the caller read).
public struct ConfigurationSource: Hashable, Sendable {
    public var name: String
    public var text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}

/// What parsing produced: the merged configuration and every diagnostic, in file order.
/// The configuration is to be used only when `isValid`.
public struct ConfigurationResult: Hashable, Sendable {
    public var configuration: Configuration
    public var diagnostics: [ConfigurationDiagnostic]

    public init(configuration: Configuration, diagnostics: [ConfigurationDiagnostic]) {
        self.configuration = configuration
        self.diagnostics = diagnostics
    }

    public var isValid: Bool { !diagnostics.hasErrors }
}
