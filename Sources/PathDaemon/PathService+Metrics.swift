import Dispatch
import PathModel
import PathProtocol

/// The metrics (docs/PROTOCOL.md, `metrics`; pathd(8), METRICS): read from the state and
/// `counters` when asked, for the `metrics` request and `MetricsFile=`.
extension PathService {
    /// Everything the metrics say now.
    func currentMetrics() -> DaemonMetrics {
        dispatchPrecondition(condition: .onQueue(queue))
        let now = clock.now()
        let path = group(for: .any).path
        let reports = InterfaceReport.reports(for: engine.snapshot, policy: configuration.policy)
        return DaemonMetrics(
            path: .init(path: path, changes: counters.pathChanges, unsatisfiedTime: counters.unsatisfiedTime(at: now),
                        lastChange: counters.lastPathChange?.wall),
            interfaces: .init(reports: reports, path: path),
            connectivity: .init(path: connectivity(of: path), reports: connectivityReports,
                                reportCounts: counters.connectivityReports),
            daemon: .init(counters: counters, generation: engine.generation, clients: clients.count,
                          subscriptions: subscriptions.count, startTime: startTime.wall))
    }

    /// The exposition text of the metrics now.
    func renderedMetrics(_ format: Exposition.Format) -> String {
        Exposition.render(currentMetrics().families, as: format)
    }

    /// Something the metrics show changed: the metrics file is rewritten (at most once a
    /// second). Nothing before the first path: until then the path is unknown.
    func metricsChanged() {
        // Not while stopping: the file is emptied then, and a write would be wasted.
        guard hasPublished, lifecycle == .running else { return }
        metricsFile?.changed()
    }
}
