import Glibc
import PathDaemon
import PathModel
import PathProtocol

/// The configuration pathd runs with: the files' settings with the command line on
/// top, loaded once at start and again (through `reload()`) on SIGHUP or a reload request.
struct DaemonConfiguration: Sendable {
    let files: ConfigurationFiles
    let options: Options
    /// The `[Daemon]` settings the process started with. Only `MaxClients=`,
    /// `ClientQueueLimit=` (for connections accepted after the change) and the
    /// `[Interface]` policy change at runtime; the rest needs a restart.
    let daemon: DaemonSettings
    let policy: Policy

    /// Loads the files; nil when they are invalid. The diagnostics, for the caller to
    /// log, come either way.
    static func load(options: Options) -> (DaemonConfiguration?, [ConfigurationDiagnostic]) {
        let files = options.configurationFiles
        let (result, _) = files.load()
        guard result.isValid else { return (nil, result.diagnostics) }
        let configuration = DaemonConfiguration(files: files, options: options,
                                                daemon: options.applied(to: result.configuration.daemon),
                                                policy: result.configuration.policy)
        return (configuration, result.diagnostics)
    }

    var service: ServiceConfiguration {
        ServiceConfiguration(maximumClients: daemon.maximumClients, maximumPendingBytes: daemon.clientQueueLimitBytes,
                             policy: policy)
    }

    /// Reads the files again; settings that cannot change at runtime are warnings.
    func reload() -> ConfigurationReload {
        let (result, _) = files.load()
        let warnings = result.diagnostics.warnings.map(\.description)
        guard result.isValid else {
            return .invalid(errors: result.diagnostics.errors.map(\.description), warnings: warnings)
        }
        let next = options.applied(to: result.configuration.daemon)
        var restart: [String] = []
        func compare<Value: Equatable>(_ key: String, _ running: Value, _ wanted: Value, _ text: (Value) -> String) {
            if running != wanted {
                restart.append("\(key)=\(text(wanted)) needs a restart; still using \(text(running))")
            }
        }
        compare("Socket", daemon.socketPath, next.socketPath) { $0 ?? "the default socket" }
        compare("LookupIPv4", daemon.lookupIPv4, next.lookupIPv4) { "\($0)" }
        compare("LookupIPv6", daemon.lookupIPv6, next.lookupIPv6) { "\($0)" }
        compare("ReceiveBuffer", daemon.receiveBufferBytes, next.receiveBufferBytes) { "\($0)" }
        compare("ResolvConf", daemon.resolvConfPath, next.resolvConfPath) { $0 }
        compare("UpstreamResolvConf", daemon.upstreamResolvConfPath, next.upstreamResolvConfPath) { $0 }
        compare("LogLevel", daemon.logLevel, next.logLevel) { $0.rawValue }
        let service = DaemonConfiguration(files: files, options: options, daemon: next,
                                          policy: result.configuration.policy).service
        return .valid(service, warnings: warnings + restart)
    }
}

extension Logger.Level {
    init(_ level: LogLevel) {
        switch level {
        case .error: self = .error
        case .warning: self = .warning
        case .notice: self = .notice
        case .info: self = .info
        case .debug: self = .debug
        }
    }
}
