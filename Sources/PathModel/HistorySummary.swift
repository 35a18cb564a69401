// SPDX-License-Identifier: Apache-2.0
/// The history read as a person asks it: when was the host without a path, for how
/// long and why, and when did nobody watch. A pure function of the entries and the
/// present moment.
///
/// - An **outage** runs from a change to a status other than satisfied until the next
///   change to satisfied. It ends early when pathd stopped (a stop mark), or at the last
///   line of a run that ended without one (a crash or `kill -9`: the end is unknown).
/// - An **unknown** period runs from a stop mark (or a run's last line) to the next
///   start: pathd did not run, so nothing is said about the path, never "offline".
/// - Durations within one run come from the monotonic clock (immune to the wall clock
///   being set); across runs, from the wall clock.
public struct HistorySummary: Hashable, Sendable {
    public struct Outage: Hashable, Sendable {
        public enum End: Hashable, Sendable {
            /// A satisfied path came back.
            case recovered(Timestamp)
            /// pathd stopped cleanly while the path was down.
            case stopped(Timestamp)
            /// pathd ended without a stop mark; the last thing it recorded was at this time.
            case lost(lastSeen: Timestamp)
            /// Still down now.
            case ongoing
        }

        /// `unsatisfied` or `requiresConnection` (the first status of the outage).
        public var status: PathStatus
        public var start: Timestamp
        public var end: End
        /// Each distinct reason in the order they came, in words.
        public var reasons: [String]
        /// How long it lasted as far as pathd saw (until now when ongoing).
        public var duration: Duration
        /// The network the path was on before it went (`PathChange.Network.label`): the
        /// last satisfied path's of the same run, when that was identified.
        public var network: String? = nil
    }

    public struct Gap: Hashable, Sendable {
        public var start: Timestamp
        public var end: Timestamp
        /// Whether the run before it ended with a stop mark (else it crashed or was killed).
        public var afterCleanStop: Bool
        public var duration: Duration
    }

    public enum Period: Hashable, Sendable {
        case outage(Outage)
        case unknown(Gap)

        /// When the period began.
        public var start: Timestamp {
            switch self {
            case .outage(let outage): outage.start
            case .unknown(let gap): gap.start
            }
        }
    }

    public var periods: [Period]

    public init(periods: [Period] = []) {
        self.periods = periods
    }

    /// The outages listed.
    public var outages: [Outage] {
        periods.compactMap { if case .outage(let outage) = $0 { outage } else { nil } }
    }

    /// Time without a path in the outages listed (the known part of each).
    public var offline: Duration { outages.reduce(.zero) { $0 + $1.duration } }

    /// Time pathd did not run, in the gaps listed.
    public var unknown: Duration {
        periods.reduce(.zero) { total, period in
            if case .unknown(let gap) = period { total + gap.duration } else { total }
        }
    }

    /// Reads `entries` (oldest first) up to `now`. The last run is taken to be running
    /// (the entries come from the running daemon), so an outage at the end is ongoing.
    public static func summarize(_ entries: [HistoryEntry], now: Timestamp) -> HistorySummary {
        var summary = HistorySummary()
        var open: Outage?
        /// The last entry of the current run.
        var last: HistoryEntry?
        /// The network of the current run's last satisfied path.
        var network: String?
        var stoppedAt: Timestamp?

        func close(_ end: Outage.End, at time: Timestamp?) {
            guard var outage = open else { return }
            outage.end = end
            outage.duration = time.map { elapsed(from: outage.start, to: $0, sameRun: true) } ?? .zero
            summary.periods.append(.outage(outage))
            open = nil
        }

        for entry in entries {
            switch entry.event {
            case .started:
                if let stoppedAt {
                    let duration = elapsed(from: stoppedAt, to: entry.time, sameRun: false)
                    summary.periods.append(.unknown(Gap(start: stoppedAt, end: entry.time, afterCleanStop: true,
                                                        duration: duration)))
                } else if let last {
                    // The previous run ended without a stop mark: its last line is all we know.
                    close(.lost(lastSeen: last.time), at: last.time)
                    let duration = elapsed(from: last.time, to: entry.time, sameRun: false)
                    summary.periods.append(.unknown(Gap(start: last.time, end: entry.time, afterCleanStop: false,
                                                        duration: duration)))
                }
                stoppedAt = nil
                last = entry
                network = nil
            case .stopped:
                close(.stopped(entry.time), at: entry.time)
                stoppedAt = entry.time
                last = nil
            case .change(let change):
                if change.status == .satisfied {
                    close(.recovered(entry.time), at: entry.time)
                    network = change.network?.label
                } else if var outage = open {
                    if let words = change.explanation, outage.reasons.last != words { outage.reasons.append(words) }
                    open = outage
                } else {
                    open = Outage(status: change.status, start: entry.time, end: .ongoing,
                                  reasons: change.explanation.map { [$0] } ?? [], duration: .zero, network: network)
                }
                last = entry
            case .unrecognized, .route:
                // A newer pathd's event: what it says about the path is unknown here. A
                // watched route is not the path (`HistoryEntry.route(to:in:)` reads it).
                continue
            }
        }
        if open != nil { close(.ongoing, at: now) }
        return summary
    }

    /// From `start` to `end`: by the monotonic clock within one run, by the wall clock
    /// across runs (the monotonic clock restarts at boot). Never negative.
    static func elapsed(from start: Timestamp, to end: Timestamp, sameRun: Bool) -> Duration {
        let difference = sameRun ? end.monotonic - start.monotonic : end.wall - start.wall
        return max(difference, .zero)
    }
}
