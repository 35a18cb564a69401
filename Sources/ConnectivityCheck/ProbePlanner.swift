// SPDX-License-Identifier: Apache-2.0
import PathModel

/// When pathd-probe checks, as a pure state machine over a monotonic clock (`now` is any
/// monotonic time; tests pass plain values, the probe a `ContinuousClock` reading):
///
/// - a change of the path (not a line that only repeats it, or only brings a new
///   connectivity verdict: that is the probe's own news) makes a round due `debounce`
///   later; more changes within that time push it back, so a burst costs one round;
/// - while the path stays satisfied, the next round is due `interval` after the last
///   one began, spread by ±`jitter` so that many hosts do not check in step;
/// - two rounds never begin less than `minimumSpacing` apart, whatever happens: a
///   flapping link cannot make the probe hammer the server;
/// - while the path is not satisfied, or pathd cannot be reached, nothing is due;
/// - a change during a round is kept and answered by another round after it.
public struct ProbePlanner: Sendable {
    public struct Timing: Hashable, Sendable {
        public var debounce: Duration
        public var minimumSpacing: Duration
        public var interval: Duration
        /// A fraction from 0 to 1.
        public var jitter: Double

        public init(interval: Duration, debounce: Duration = .seconds(1), minimumSpacing: Duration = .seconds(2),
                    jitter: Double = 0.1) {
            self.debounce = debounce
            self.minimumSpacing = minimumSpacing
            self.interval = interval
            self.jitter = min(max(jitter, 0), 1)
        }
    }

    public var timing: Timing
    /// The interfaces of the satisfied path, the kernel's first choice first; empty
    /// while the path is not satisfied or unknown.
    public private(set) var interfaces: [String] = []
    /// When the next round may begin; nil when none is due.
    public private(set) var due: Duration?
    public private(set) var isRunning = false
    private var lastPath: Path?
    private var lastRoundStart: Duration?
    private var changedDuringRound = false

    public init(timing: Timing) {
        self.timing = timing
    }

    /// A (new) connection to pathd: its next path is news even if it is the same, since
    /// a restarted pathd knows no results.
    public mutating func connected() {
        lastPath = nil
    }

    /// pathd cannot be reached: nothing to check for, nobody to report to.
    public mutating func disconnected() {
        lastPath = nil
        interfaces = []
        due = nil
        changedDuringRound = false
    }

    /// A path line arrived.
    public mutating func received(_ path: Path, now: Duration) {
        guard path != lastPath else { return }
        lastPath = path
        interfaces = path.status == .satisfied ? path.availableInterfaces.map(\.name) : []
        changed(now: now, after: timing.debounce)
    }

    /// Check as soon as the spacing allows (SIGHUP).
    public mutating func checkNow(now: Duration) {
        changed(now: now, after: .zero)
    }

    private mutating func changed(now: Duration, after delay: Duration) {
        if isRunning {
            changedDuringRound = !interfaces.isEmpty
            return
        }
        due = interfaces.isEmpty ? nil : earliest(now + delay)
    }

    /// Begins the round that is due by `now`: returns the interfaces to check, or nil
    /// when none is due yet (or one is running).
    public mutating func startRound(now: Duration) -> [String]? {
        guard !isRunning, let due, now >= due, !interfaces.isEmpty else { return nil }
        isRunning = true
        lastRoundStart = now
        self.due = nil
        return interfaces
    }

    /// The round that began last has ended; `random` is a value in 0..<1 for the jitter.
    public mutating func finishRound(now: Duration, random: Double) {
        isRunning = false
        guard !interfaces.isEmpty else {
            due = nil
            return
        }
        if changedDuringRound {
            changedDuringRound = false
            due = earliest(now + timing.debounce)
            return
        }
        let factor = 1 + timing.jitter * (2 * random - 1)
        due = earliest(max((lastRoundStart ?? now) + timing.interval * factor, now))
    }

    private func earliest(_ time: Duration) -> Duration {
        guard let lastRoundStart else { return time }
        return max(time, lastRoundStart + timing.minimumSpacing)
    }
}
