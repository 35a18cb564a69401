// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
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

/// The configuration the service runs with, and reload: SIGHUP and `{"op":"reload"}`.
/// Everything is parsed and validated before anything changes; only a fully valid
/// configuration is swapped in, in one step on the state queue, and `onApplied` then
/// re-publishes only the paths it changed. No client is disconnected: lower limits
/// (`MaxClients=`, `MaxClientsPerUser=`, `MaxSubscriptionsPerClient=`,
/// `ClientQueueLimit=`) apply to new connections and subscriptions only.
///
/// Threading: the state queue only (see `PathService`).
final class ServiceConfiguration {
    /// Replaced whole by `apply`, never edited in place; every part reads it here. The
    /// metrics show what it decides (`ServiceRecords.changed`).
    private(set) var current: Configuration {
        didSet { records.changed() }
    }
    /// Reads the configuration files again; nil when there are none to read.
    var reloader: ConfigurationReloader?
    /// Called when a reload begins and when it has ended (applied or not).
    var onReload: ((PathService.ReloadPhase) -> Void)?
    /// Called once a new configuration is in place.
    var onApplied: (() -> Void)?
    private let log: Logger
    private let records: ServiceRecords

    init(_ configuration: Configuration, log: Logger, records: ServiceRecords) {
        current = configuration
        self.log = log
        self.records = records
    }

    /// Reads the configuration again and applies it if valid; logs the outcome.
    func reload(requestedBy requester: String) -> ConfigurationReload {
        guard let reloader else {
            let outcome = ConfigurationReload.invalid(errors: ["this pathd has no configuration files to reload"],
                                                      warnings: [])
            log.warning("reload requested by \(requester), but no configuration reloader is installed")
            records.recordReload(.failed)
            return outcome
        }
        onReload?(.began)
        defer { onReload?(.ended) }
        let outcome = reloader()
        switch outcome {
        case .valid(let configuration, let warnings):
            for warning in warnings { log.warning(warning) }
            apply(configuration)
            records.recordReload(.ok)
            log.info("configuration reloaded (requested by \(requester))")
        case .invalid(let errors, let warnings):
            for warning in warnings { log.warning(warning) }
            for error in errors { log.error(error) }
            records.recordReload(.failed)
            log.error("configuration not reloaded (requested by \(requester)): \(errors.count) error(s); "
                + "the running configuration stays")
        }
        return outcome
    }

    /// Swaps in a validated configuration in one step.
    func apply(_ configuration: Configuration) {
        current = configuration
        onApplied?()
    }
}
