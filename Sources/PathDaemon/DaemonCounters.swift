// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Every counter pathd's metrics report: what happened since the daemon started. The
/// service holds the one instance and records each event where it happens; the metrics
/// (`DaemonMetrics`) read it with the current state, so nothing is counted twice.
/// A value type: tests drive it directly.
struct DaemonCounters: Sendable {
    enum ReloadResult: String, Sendable, CaseIterable {
        case ok, failed
    }

    /// Changes of the default path after its first one.
    private(set) var pathChanges: UInt64 = 0
    /// When the default path last changed (its first path counts as a change here).
    private(set) var lastPathChange: Timestamp?
    /// The time the default path spent unsatisfied.
    private var unsatisfied = OutageClock()

    /// Receive-buffer overruns reported by the netlink monitor (events were lost).
    private(set) var overruns: UInt64 = 0
    /// New generations whose full state arrived after the previous one lost events.
    private(set) var resyncs: UInt64 = 0
    /// Connections closed, by why (refused ones included).
    private(set) var disconnects: [ClientConnection.CloseReason: UInt64] = [:]
    private(set) var reloads: [ReloadResult: UInt64] = [:]

    /// Records that the default path became `path` at `time` (`isFirst` for the first
    /// path of the run, which is not counted as a change).
    mutating func recordDefaultPath(_ path: Path, isFirst: Bool, at time: Timestamp) {
        if !isFirst { pathChanges += 1 }
        lastPathChange = time
        unsatisfied.record(isOut: path.status == .unsatisfied, at: time)
    }

    /// Time the default path spent unsatisfied since the daemon started, up to `now`.
    func unsatisfiedTime(at now: Timestamp) -> Duration { unsatisfied.total(at: now) }

    mutating func recordSourceLost(_ loss: SourceLoss) {
        if loss.kind == .overrun { overruns += 1 }
    }

    mutating func recordResync() { resyncs += 1 }

    mutating func recordDisconnect(_ reason: ClientConnection.CloseReason) { disconnects[reason, default: 0] += 1 }

    mutating func recordReload(_ result: ReloadResult) { reloads[result, default: 0] += 1 }

    /// Connectivity reports taken, by the state they reported.
    private(set) var connectivityReports: [ConnectivityState: UInt64] = [:]

    mutating func recordConnectivityReport(_ state: ConnectivityState) { connectivityReports[state, default: 0] += 1 }
}

/// The time something spent out (the default path unsatisfied, a watched host's route
/// unusable), on the monotonic clock: the periods that ended, and the one going on.
struct OutageClock: Sendable {
    /// The periods that ended.
    private var before = Duration.zero
    /// When the current period began (monotonic), nil while not out.
    private var since: Duration?

    /// Records whether it is out as of `time`.
    mutating func record(isOut: Bool, at time: Timestamp) {
        if isOut {
            if since == nil { since = time.monotonic }
        } else if let began = since {
            before += max(time.monotonic - began, .zero)
            since = nil
        }
    }

    /// The time out up to `now`.
    func total(at now: Timestamp) -> Duration {
        before + (since.map { max(now.monotonic - $0, .zero) } ?? .zero)
    }
}
