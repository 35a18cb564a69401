import Dispatch
import Glibc
import PathModel
import PathProtocol
import ServiceSupport

/// What reading the configuration again came to: a complete, validated service
/// configuration, or the errors that kept the running one in place. Diagnostics are
/// ready to print (`pathd.conf:12: …`).
public enum ConfigurationReload: Sendable {
    case valid(Configuration, warnings: [String])
    case invalid(errors: [String], warnings: [String])
}

/// Reads and validates the configuration files; runs on the state queue (they are a few
/// small local files, bounded in size by `ConfigurationFiles`).
public typealias ConfigurationReloader = @Sendable () -> ConfigurationReload

/// Reload: SIGHUP and `{"op":"reload"}`. Everything is parsed and validated before
/// anything changes; only a fully valid configuration is swapped in, in one step on the
/// state queue, and a path is published only where it changed. No client is
/// disconnected: lower limits (`MaxClients=`, `MaxClientsPerUser=`,
/// `MaxSubscriptionsPerClient=`, `ClientQueueLimit=`) apply to new connections and
/// subscriptions only.
extension PathService {
    /// Installs what `reloadConfiguration` calls to read the files.
    public func setConfigurationReloader(_ reloader: @escaping ConfigurationReloader) {
        dispatchPrecondition(condition: .onQueue(queue))
        configurationReloader = reloader
    }

    /// Reads the configuration again and applies it if valid; logs the outcome.
    @discardableResult
    public func reloadConfiguration(requestedBy requester: String) -> ConfigurationReload {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let configurationReloader else {
            let outcome = ConfigurationReload.invalid(errors: ["this pathd has no configuration files to reload"], warnings: [])
            log.warning("reload requested by \(requester), but no configuration reloader is installed")
            counters.recordReload(.failed)
            metricsChanged()
            return outcome
        }
        onReload?(.began)
        defer {
            onReload?(.ended)
            metricsChanged()
        }
        let outcome = configurationReloader()
        switch outcome {
        case .valid(let configuration, let warnings):
            for warning in warnings { log.warning(warning) }
            reconfigure(configuration)
            counters.recordReload(.ok)
            log.info("configuration reloaded (requested by \(requester))")
        case .invalid(let errors, let warnings):
            for warning in warnings { log.warning(warning) }
            for error in errors { log.error(error) }
            counters.recordReload(.failed)
            log.error("configuration not reloaded (requested by \(requester)): \(errors.count) error(s); the running configuration stays")
        }
        return outcome
    }

    /// Swaps in a validated configuration in one step and publishes the paths it changed.
    public func reconfigure(_ configuration: Configuration) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.configuration = configuration
        reconfigureBudget()
        // Before the first path there is nothing to re-evaluate: the first batch will
        // be evaluated under the new policy.
        if engine.hasState { publishChanges() }
    }

    /// Only root and the daemon's own user may make the requests that change what every
    /// client is told: `reload` (it re-reads files the requester may not control) and
    /// `reportConnectivity` (pathd-probe runs as pathd's user, pathd-probe.service's
    /// `User=pathd`). Not a separate probe uid: pathd.service's `PrivateUsers=yes` maps
    /// every other user to nobody, so SO_PEERCRED could not tell one apart. An unknown
    /// peer (`uid_t.max`, SO_PEERCRED failed) may not.
    public static func isTrusted(peerUserID: uid_t, daemonUserID: uid_t) -> Bool {
        peerUserID != uid_t.max && (peerUserID == 0 || peerUserID == daemonUserID)
    }

    /// Whether the peer may make a privileged request (`isTrusted`); if not, logs that
    /// it tried (`doing`) and answers `permissionDenied` with `allowed`.
    func requireTrusted(_ request: Request, from connection: ClientConnection, doing: String, allowed: String) -> Bool {
        guard !budget.isPrivileged(connection.userID) else { return true }
        log.notice("client \(connection.id) (uid \(connection.userID)) \(doing); denied")
        connection.send(ServerMessage.error(code: .permissionDenied, message: allowed, id: request.id).encoded())
        return false
    }

    func handleReload(_ request: Request, from connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard requireTrusted(request, from: connection, doing: "asked to reload",
                             allowed: "reload is allowed for root and the daemon's own user only") else { return }
        switch reloadConfiguration(requestedBy: "client \(connection.id) (uid \(connection.userID))") {
        case .valid(_, let warnings):
            connection.send(ServerMessage.reloaded(warnings: warnings, id: request.id).encoded())
        case .invalid(let errors, _):
            connection.send(ServerMessage.error(code: .configInvalid,
                                                message: "configuration not reloaded: " + errors.joined(separator: "\n"),
                                                id: request.id).encoded())
        }
    }
}
