import PathDaemon
import ServiceSupport
import PathModel
import PathConfiguration

/// The configuration pathd runs with: the files' settings with the command line on
/// top, loaded once at start and again (through `reload()`) on SIGHUP or a reload request.
struct DaemonConfiguration: Sendable {
    let files: ConfigurationFiles
    let options: Options
    /// The `[Daemon]` settings the process started with. Keys marked reloadable in
    /// `DaemonSettings.keys` and the `[Interface]` policy change at runtime; the rest
    /// needs a restart.
    let daemon: DaemonSettings
    let policy: Policy
    /// `[Connectivity]`: applied by a reload (pathd only matches reports against its URL).
    let connectivity: ConnectivitySettings
    /// `[Watch]`: applied by a reload.
    let watch: WatchSettings

    /// Loads the files; nil when they are invalid. The diagnostics, for the caller to
    /// log, come either way.
    static func load(options: Options) -> (DaemonConfiguration?, [ConfigurationDiagnostic]) {
        let files = options.configurationFiles
        let (result, _) = files.load()
        guard result.isValid else { return (nil, result.diagnostics) }
        let configuration = DaemonConfiguration(files: files, options: options,
                                                daemon: options.applied(to: result.configuration.daemon),
                                                policy: result.configuration.policy,
                                                connectivity: result.configuration.connectivity,
                                                watch: result.configuration.watch)
        return (configuration, result.diagnostics)
    }

    var service: Configuration {
        Configuration(daemon: daemon, policy: policy, connectivity: connectivity, watch: watch)
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
        for key in DaemonSettings.keys where !key.isReloadable {
            let running = key.render(daemon)
            let wanted = key.render(next)
            if running != wanted {
                func shown(_ value: String) -> String { value.isEmpty ? "the default" : value }
                restart.append("\(key.name)=\(wanted) needs a restart; still using \(shown(running))")
            }
        }
        // Keys that need a restart keep their running values: the service must go on
        // evaluating with what the netlink monitor and the listener really use.
        let service = DaemonConfiguration(files: files, options: options, daemon: daemon.reloaded(from: next),
                                          policy: result.configuration.policy,
                                          connectivity: result.configuration.connectivity,
                                          watch: result.configuration.watch).service
        return .valid(service, warnings: warnings + restart)
    }
}
