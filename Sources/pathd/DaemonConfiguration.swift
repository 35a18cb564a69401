// SPDX-License-Identifier: Apache-2.0
import PathDaemon
import ServiceSupport
import PathModel
import PathConfiguration

/// The configuration pathd runs with: the files' settings with the command line on
/// top, loaded once at start and again (through `reload()`) on SIGHUP or a reload request.
struct DaemonConfiguration: Sendable {
    let files: ConfigurationFiles
    let options: Options
    /// What the process started with. Keys marked reloadable in `DaemonSettings.keys`
    /// and every other section change at runtime (`reload()`); the rest needs a restart.
    let initial: Configuration

    /// Loads the files; nil when they are invalid. The diagnostics, for the caller to
    /// log, come either way.
    static func load(options: Options) -> (DaemonConfiguration?, [ConfigurationDiagnostic]) {
        let files = options.configurationFiles
        let (result, _) = files.load()
        guard result.isValid else { return (nil, result.diagnostics) }
        let (initial, keyProblem) = options.applied(to: result.configuration).readingNetworkKey()
        let diagnostics = result.diagnostics + (keyProblem.map { [$0] } ?? [])
        guard !diagnostics.hasErrors else { return (nil, diagnostics) }
        return (DaemonConfiguration(files: files, options: options, initial: initial), diagnostics)
    }

    /// Reads the files again; settings that cannot change at runtime are warnings.
    func reload() -> ConfigurationReload {
        let (result, _) = files.load()
        let warnings = result.diagnostics.warnings.map(\.description)
        guard result.isValid else {
            return .invalid(errors: result.diagnostics.errors.map(\.description), warnings: warnings)
        }
        let (keyed, keyProblem) = options.applied(to: result.configuration).readingNetworkKey()
        if let keyProblem, keyProblem.severity == .error {
            return .invalid(errors: [keyProblem.description], warnings: warnings)
        }
        var next = keyed
        var restart: [String] = []
        for key in DaemonSettings.keys where !key.isReloadable {
            let running = key.render(initial.daemon)
            let wanted = key.render(next.daemon)
            if running != wanted {
                func shown(_ value: String) -> String { value.isEmpty ? "the default" : value }
                restart.append("\(key.name)=\(wanted) needs a restart; still using \(shown(running))")
            }
        }
        // Keys that need a restart keep their running values: the service must go on
        // evaluating with what the netlink monitor and the listener really use.
        next.daemon = initial.daemon.reloaded(from: next.daemon)
        return .valid(next, warnings: warnings + (keyProblem.map { [$0.description] } ?? []) + restart)
    }
}
