// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathSocketClient

/// Which source serves a monitor, and when that changes hands: the rule of
/// `PathMonitor.Mode` (docs/ARCHITECTURE.md, "Client library") between pathd's
/// subscription and pathd's engine in this process, for `PathMonitor` and for
/// `PathMonitor.routeUpdates`. Each engine adopted gets an epoch, and only an event
/// carrying the current one is taken: one that was on its way when its engine was
/// stopped, or that comes while the daemon answers or after `cancel`, is dropped.
///
/// A value with no queue, clock or thread: its owner keeps it behind its lock, calls a
/// transition for each event (on the owner's queue; `start` and `cancel` from any thread),
/// and does outside the lock what the transition returned: subscribe and schedule
/// `daemonWaitElapsed` (`Opening.open`), start an engine and `adopt` it, cancel the engine
/// returned. `Engine` is the owner's engine type (a name in the tests).
package struct SourceHandOver<Engine> {
    package enum Phase: Hashable, Sendable { case idle, running, cancelled }

    /// What `start` asks the owner to start.
    package enum Opening: Hashable, Sendable {
        /// Subscribe to pathd; with a wait, call `daemonWaitElapsed` after it.
        case daemon(engineAfter: Duration?)
        /// Start the engine here (and no subscription).
        case inProcess
    }

    /// What follows a lost or failed daemon connection.
    package enum AfterDisconnection: Hashable, Sendable {
        /// `.automatic`: start the engine here; the answer stays until it answers.
        case startEngine
        /// `.daemon`: nothing answers now, so the answer is unknown (`source` is `.none`).
        case unknown
        /// `.inProcess`: no daemon, nothing changes.
        case nothing
    }

    package let mode: PathMonitor.Mode
    package private(set) var phase = Phase.idle
    /// Where the latest answer came from.
    package private(set) var source = PathMonitor.Source.none
    /// Why the daemon could not be used lately, or the engine here failed; nil once a
    /// daemon accepted a connection.
    package private(set) var lastError: PathClientError?
    /// The daemon has answered on its current connection.
    package private(set) var daemonAnswers = false
    /// The engine in this process while it runs (a new one each time).
    package private(set) var engine: Engine?
    /// Bumped each time an engine is adopted or stopped; its answers carry the epoch
    /// they were made in.
    private var epoch: UInt64 = 0
    private var daemonSocket: String?
    /// Connections a daemon accepted, the current one included.
    private var daemonConnections: UInt64 = 0

    package init(mode: PathMonitor.Mode) {
        self.mode = mode
    }

    package var isRunning: Bool { phase == .running }

    /// Idle → running: what to start; nil when started or cancelled before.
    package mutating func start() -> Opening? {
        guard phase == .idle else { return nil }
        phase = .running
        switch mode {
        case .automatic: return .daemon(engineAfter: PathMonitor.daemonAnswerWait)
        case .daemon: return .daemon(engineAfter: nil)
        case .inProcess: return .inProcess
        }
    }

    /// Stops for good; the owner cancels the engine returned.
    package mutating func cancel() -> Engine? {
        phase = .cancelled
        return detachEngine()
    }

    /// `daemonAnswerWait` passed since `start`: true when the engine here is to start,
    /// because no daemon has answered.
    package func daemonWaitElapsed() -> Bool {
        isRunning && !daemonAnswers
    }

    /// The owner made an engine to start: the epoch its answers are to carry when it is
    /// to run, nil when it is not wanted (not running, one runs, the daemon answers).
    package mutating func adopt(_ engine: Engine) -> UInt64? {
        guard isRunning, self.engine == nil, !daemonAnswers else { return nil }
        self.engine = engine
        epoch &+= 1
        return epoch
    }

    /// A daemon accepted a connection at `socketPath`.
    package mutating func daemonConnected(socketPath: String) {
        daemonSocket = socketPath
        daemonConnections += 1
        lastError = nil
    }

    /// The daemon answered: it serves from now on, and the owner cancels the engine
    /// returned.
    package mutating func daemonAnswered(generation: Generation) -> Engine? {
        daemonAnswers = true
        source = .daemon(socketPath: daemonSocket ?? "", generation: generation, connection: daemonConnections)
        return detachEngine()
    }

    /// The daemon's connection could not be made or ended.
    package mutating func daemonDisconnected(_ error: PathClientError) -> AfterDisconnection {
        lastError = error
        daemonAnswers = false
        switch mode {
        case .automatic: return .startEngine
        case .daemon:
            source = .none
            return .unknown
        case .inProcess: return .nothing
        }
    }

    /// Whether an engine's event made in `epoch` is to be taken (see the type's rule).
    package func accepts(epoch: UInt64) -> Bool {
        isRunning && epoch == self.epoch && engine != nil && !daemonAnswers
    }

    /// The engine made an answer in `epoch`: true when it is taken, and the engine serves.
    package mutating func engineAnswered(epoch: UInt64) -> Bool {
        guard accepts(epoch: epoch) else { return false }
        source = .inProcess
        return true
    }

    /// The engine of `epoch` cannot watch the kernel: nothing here serves until the
    /// daemon answers or an engine is started again. Returns the engine, which the owner
    /// cancels, and the failure (now `lastError`); nil when the event is not taken.
    package mutating func engineFailed(epoch: UInt64, reason: String) -> (stopped: Engine, error: PathClientError)? {
        guard accepts(epoch: epoch), let stopped = detachEngine() else { return nil }
        let error = PathClientError("the in-process engine cannot watch the kernel: \(reason)")
        lastError = error
        source = .none
        return (stopped, error)
    }

    /// The engine here runs with the built-in policy because pathd.conf has problems:
    /// recorded unless a failure is already.
    package mutating func engineIgnoredConfiguration(_ problems: [String]) {
        lastError = lastError ?? PathClientError(
            "pathd.conf has problems; the in-process engine uses the built-in policy: "
                + problems.joined(separator: "; "))
    }

    /// Forgets the engine, so that what it still sends is dropped.
    private mutating func detachEngine() -> Engine? {
        epoch &+= 1
        defer { engine = nil }
        return engine
    }
}

extension SourceHandOver.Opening {
    /// Does what `start` asked, for an owner whose events are handled on `queue`:
    /// `subscribe()`, then after the wait `startEngine()` if `daemonWaitElapsed()` (the
    /// owner's hand-over, read under its lock) says so; or `startEngine()` at once.
    func open(on queue: DispatchQueue, subscribe: () -> Void, daemonWaitElapsed: @escaping @Sendable () -> Bool,
              startEngine: @escaping @Sendable () -> Void) {
        switch self {
        case .inProcess: startEngine()
        case .daemon(let engineAfter):
            subscribe()
            guard let engineAfter else { return }
            queue.asyncAfter(deadline: .now() + engineAfter.dispatchInterval) {
                if daemonWaitElapsed() { startEngine() }
            }
        }
    }
}
