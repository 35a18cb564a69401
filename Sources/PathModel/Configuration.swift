/// Log verbosity, as `LogLevel=` and `--log-level` name it, and the level of one line.
/// Ordered by importance: `.error < .debug`, as syslog(3) numbers them.
public enum LogLevel: String, Hashable, Sendable, CaseIterable, Comparable {
    case error
    case warning
    case notice
    case info
    case debug

    /// The syslog(3) priority (`LOG_ERR` 3 … `LOG_DEBUG` 7), as sd-daemon(3) prefixes use.
    public var priority: Int {
        switch self {
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug: 7
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.priority < rhs.priority }
}

/// Everything pathd reads from pathd.conf and its drop-ins.
public struct Configuration: Hashable, Sendable {
    public var daemon: DaemonSettings
    public var policy: Policy
    /// The `[Connectivity]` section, read by pathd-probe (what to check) and by pathd
    /// (which reports still apply after a reload).
    public var connectivity: ConnectivitySettings
    /// The `[Watch]` section: the hosts whose route pathd follows for its metrics.
    public var watch: WatchSettings

    public init(daemon: DaemonSettings = DaemonSettings(), policy: Policy = .standard,
                connectivity: ConnectivitySettings = ConnectivitySettings(), watch: WatchSettings = WatchSettings()) {
        self.daemon = daemon
        self.policy = policy
        self.connectivity = connectivity
        self.watch = watch
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
