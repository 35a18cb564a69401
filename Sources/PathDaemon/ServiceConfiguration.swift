// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathConfiguration
import ServiceSupport
import SystemCalls

/// What reading the configuration again came to: a complete, validated service
/// configuration, or the errors that kept the running one in place. Diagnostics are
/// ready to print (`pathd.conf:12: …`).
public enum ConfigurationReload: Sendable {
    case valid(Configuration, warnings: [String])
    case invalid(errors: [String], warnings: [String])
}

/// Reads and validates the configuration files. Runs on a queue of its own, never the
/// state queue: the files are bounded (1 MiB each, `ConfigurationFiles`), but reading
/// and parsing a large one takes long enough to hold every client and path change.
public typealias ConfigurationReloader = @Sendable () -> ConfigurationReload

/// The configuration the service runs with, and reload: SIGHUP and `{"op":"reload"}`.
/// Everything is read, parsed and validated off the state queue, before anything
/// changes; only a fully valid configuration is swapped in, in one step on the state
/// queue, and the `applied` callback then re-publishes only the paths it changed. No client is
/// disconnected: lower limits (`MaxClients=`, `MaxClientsPerUser=`,
/// `MaxSubscriptionsPerClient=`, `ClientQueueLimit=`) apply to new connections and
/// subscriptions only.
///
/// Threading: the state queue only (see `PathService`), but for the reloader, which runs
/// on `reading`; the state is bound to the state queue (`QueueBound`).
final class ServiceConfiguration: Sendable {
    private struct State {
        var current: Configuration
        var reloader: ConfigurationReloader?
        var onReload: ((PathService.ReloadPhase) -> Void)?
    }

    private let state: QueueBound<State>
    /// Replaced whole by `apply`, never edited in place; every part reads it here. The
    /// metrics show what it decides (`ServiceRecords.changed`). Lent (`_read`): each
    /// evaluation reads the policy of it, and a copy of the whole configuration retained
    /// and released every part of it, cold, before each change's line.
    var current: Configuration {
        _read { yield state.value.current }
    }
    /// Reads the configuration files again; nil when there are none to read.
    var reloader: ConfigurationReloader? {
        get { state.value.reloader }
        set { state.value.reloader = newValue }
    }
    /// Called when a reload begins and when it has ended (applied or not).
    var onReload: ((PathService.ReloadPhase) -> Void)? {
        get { state.value.onReload }
        set { state.value.onReload = newValue }
    }
    private let log: Logger
    private let records: ServiceRecords
    private let queue: DispatchQueue
    /// Where the reloader runs, one reload after another, in the order they were asked.
    private let reading = DispatchQueue(label: "pathd.reload")

    init(_ configuration: Configuration, queue: DispatchQueue, log: Logger, records: ServiceRecords) {
        state = QueueBound(sending: State(current: configuration), on: queue)
        self.queue = queue
        self.log = log
        self.records = records
    }

    /// Reads the configuration again, on `reading`, then on the state queue applies it if
    /// valid, logs the outcome and calls `completion` with it. The state queue serves
    /// clients and path changes while the files are read and parsed.
    func reload(requestedBy requester: String, applied: @escaping @Sendable () -> Void,
                completion: @escaping @Sendable (ConfigurationReload) -> Void) {
        guard let reloader else {
            let outcome = ConfigurationReload.invalid(errors: ["this pathd has no configuration files to reload"],
                                                      warnings: [])
            log.warning("reload requested by \(requester), but no configuration reloader is installed")
            records.recordReload(.failed)
            completion(outcome)
            return
        }
        onReload?(.began)
        reading.async { [self, queue] in
            let outcome = reloader()
            queue.async { [self] in
                finishReload(outcome, requestedBy: requester, applied: applied)
                completion(outcome)
            }
        }
    }

    /// A reload's outcome, on the state queue: applied if valid, logged and counted.
    private func finishReload(_ outcome: ConfigurationReload, requestedBy requester: String,
                              applied: () -> Void) {
        defer { onReload?(.ended) }
        switch outcome {
        case .valid(let configuration, let warnings):
            for warning in warnings { log.warning(warning) }
            apply(configuration)
            applied()
            records.recordReload(.ok)
            log.info("configuration reloaded (requested by \(requester))")
        case .invalid(let errors, let warnings):
            for warning in warnings { log.warning(warning) }
            for error in errors { log.error(error) }
            records.recordReload(.failed)
            log.error("configuration not reloaded (requested by \(requester)): \(errors.count) error(s); "
                + "the running configuration stays")
        }
    }

    /// Swaps in a validated configuration in one step.
    func apply(_ configuration: Configuration) {
        state.value.current = configuration
        records.changed()
    }
}
