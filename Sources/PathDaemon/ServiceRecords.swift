// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// What the daemon tells about its past: the counters of what happened, the default
/// path's history and the metrics made from them (docs/PROTOCOL.md, `metrics` and
/// `history`; pathd(8), METRICS). The other parts record each event here where it
/// happens; nothing else keeps a counter. Every record marks the metrics changed by
/// itself; the parts whose own state the metrics show (the client list, the
/// subscriptions, the configuration, the connectivity reports) call `changed()` from
/// that state's property observer, so no change can skip the metrics file.
///
/// Threading: the state queue only (see `PathService`); the state is bound to it (`QueueBound`).
final class ServiceRecords: Sendable {
    enum Phase { case starting, live, closed }

    private let queue: DispatchQueue
    private let log: Logger
    let scheduler: any Scheduler
    /// The clock of the history and the metrics.
    let clock: any TimeSource
    /// When the service was made, for `pathd_start_time_seconds`.
    let startTime: Timestamp
    private let state: QueueBound<State>

    private struct State {
        /// What happened since the start: the one owner of every counter.
        var counters = DaemonCounters()
        /// The default path's changes; opened by `open`.
        var history: PathHistory?
        /// `MetricsFile=`, when set; opened by `open`.
        var metricsFile: MetricsFile?
        /// The metrics file follows changes from the first path on (until then the path is
        /// unknown) until the service stops (the file is emptied then, and a write would be
        /// wasted).
        var phase = Phase.starting
        /// Everything the metrics say now, gathered from the service's parts; given by `open`.
        var sample: (() -> DaemonMetrics?)?
    }

    var counters: DaemonCounters { state.value.counters }
    var history: PathHistory? { state.value.history }
    var metricsFile: MetricsFile? { state.value.metricsFile }

    init(queue: DispatchQueue, log: Logger, scheduler: any Scheduler, clock: any TimeSource) {
        self.queue = queue
        self.log = log
        self.scheduler = scheduler
        self.clock = clock
        startTime = clock.now()
        state = QueueBound(sending: State(), on: queue)
    }

    /// Opens the history (with its start mark) and the metrics file, whose text `sample`
    /// gathers from the service's parts.
    func open(historySize: Int, stateDirectory: String?, metricsFilePath: String?,
              sample: @escaping () -> DaemonMetrics?) {
        state.value.sample = sample
        let history = PathHistory(capacity: historySize, directory: stateDirectory, queue: queue,
                                  scheduler: scheduler, log: log)
        history.record(HistoryEntry(time: clock.now(), event: .started))
        state.value.history = history
        if let metricsFilePath {
            state.value.metricsFile = MetricsFile(path: metricsFilePath, queue: queue, scheduler: scheduler,
                                      log: log) { [weak self] in
                self.map { Array($0.rendered(.prometheus).utf8) } ?? []
            }
        }
    }


    /// The stop mark; the history's file is synced and the metrics file emptied.
    func close() {
        guard state.value.phase != .closed else { return }
        state.value.phase = .closed
        history?.record(HistoryEntry(time: clock.now(), event: .stopped))
        history?.close()
        state.value.metricsFile?.stop()
    }

    /// Something the metrics show changed: the metrics file is rewritten (at the end of
    /// the queue's turn, at most once a second).
    func changed() {
        guard state.value.phase == .live else { return }
        state.value.metricsFile?.changed()
    }

    /// The exposition text of the metrics now.
    func rendered(_ format: Exposition.Format) -> String {
        Exposition.render(state.value.sample?()?.families ?? [], as: format)
    }

    // MARK: Events

    /// The kernel's state changed (after a resync when `resync` is set): the paths are
    /// published from now on, and the metrics file follows changes from the first on.
    func recordStateChange(resync: String?) {
        if state.value.phase == .starting { state.value.phase = .live }
        if resync != nil { state.value.counters.recordResync() }
        changed()
    }

    /// The default path was published at `now` and differs from `previous` (nil for the
    /// first).
    func recordDefaultPath(_ path: Path, generation: Generation, sequence: UInt64, previous: Path?,
                           at now: Timestamp) {
        state.value.counters.recordDefaultPath(path, isFirst: previous == nil, at: now)
        history?.record(HistoryEntry(time: now, event: .change(PathChange(path, generation: generation,
                                                                          sequence: sequence))))
        changed()
    }

    /// Records that the route to a host of `[Watch]` became `change` (`WatchList`).
    func recordRoute(host: String, _ change: PathChange, at now: Timestamp) {
        history?.record(HistoryEntry(time: now, event: .route(host: host, change)))
        changed()
    }

    func recordSourceLost(_ loss: SourceLoss) {
        state.value.counters.recordSourceLost(loss)
        changed()
    }

    func recordDisconnect(_ reason: ClientConnection.CloseReason) {
        state.value.counters.recordDisconnect(reason)
        changed()
    }

    func recordReload(_ result: DaemonCounters.ReloadResult) {
        state.value.counters.recordReload(result)
        changed()
    }

    func recordConnectivityReport(_ report: ConnectivityState) {
        state.value.counters.recordConnectivityReport(report)
        changed()
    }
}
