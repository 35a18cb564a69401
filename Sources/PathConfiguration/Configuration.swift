// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathSettings

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
    /// Past this many `[Network]` sections the configuration is invalid: each
    /// evaluation matches every identified link's network against them in order.
    public static let maximumNetworkSections = 1024
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
