// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel
import PathConfiguration
import PathProtocol
import PathSocketClient
import ServiceSupport
import SystemCalls

/// Fetches the check URL through one interface; blocking (runs on the probe's worker).
public protocol ConnectivityFetcher: Sendable {
    func fetch(url: String, interface: String, timeout: Duration,
               expected: ConnectivitySettings.ExpectedContent) -> FetchResult
}

/// Hands a round's results to pathd; blocking (runs on the probe's worker).
public protocol ConnectivityReporter: Sendable {
    func report(_ results: [Connectivity], to socketPath: String) throws(PathClientError)
}

/// What pathd-probe runs: subscribes to pathd like any client (`DaemonSubscription`,
/// which reconnects across a restart of pathd), plans rounds with `ProbePlanner`, runs
/// each round's fetches and its report on a worker queue, and goes on. Time comes from
/// the injected `Scheduler` and clocks, so tests need no sleeps.
///
/// Threading: the planner, the settings and the timer token are bound to `queue`
/// (`QueueBound`); fetches and reports run on `worker`, one round at a time.
public final class ConnectivityProbe: Sendable {
    public let queue = DispatchQueue(label: "pathd-probe.state")
    private let worker = DispatchQueue(label: "pathd-probe.fetch")
    private let state: QueueBound<State>
    private let subscription: DaemonSubscription
    private let fetcher: any ConnectivityFetcher
    private let reporter: any ConnectivityReporter
    private let scheduler: any Scheduler
    private let log: Logger
    private let now: @Sendable () -> Duration
    private let wallClock: @Sendable () -> UTCTime
    private let random: @Sendable () -> Double

    private struct State {
        var settings: ConnectivitySettings
        var planner: ProbePlanner
        var daemon = DaemonLink.notYetTried
        /// Bumped whenever the due time changes: a timer armed before fires into nothing.
        var timerToken: UInt64 = 0
    }

    public init(settings: ConnectivitySettings, socketPath: String?, fetcher: any ConnectivityFetcher,
                reporter: any ConnectivityReporter = PathConnectionReporter(), log: Logger,
                scheduler: any Scheduler = DispatchScheduler(),
                now: @escaping @Sendable () -> Duration = { ContinuousClock.now - ProbeClock.origin },
                wallClock: @escaping @Sendable () -> UTCTime = UTCTime.now,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        let planner = ProbePlanner(timing: .init(interval: settings.interval))
        state = QueueBound(sending: State(settings: settings, planner: planner), on: queue)
        subscription = DaemonSubscription(criteria: .any, socketPath: socketPath, scheduler: scheduler)
        self.fetcher = fetcher
        self.reporter = reporter
        self.log = log
        self.scheduler = scheduler
        self.now = now
        self.wallClock = wallClock
        self.random = random
    }

    /// Subscribes to pathd; returns at once.
    public func start() {
        subscription.start(queue: queue) { [self] event in received(event) }
    }

    public func cancel() {
        subscription.cancel()
    }

    /// New settings (a reload): used from the next round, which begins as soon as the
    /// spacing allows. Without a URL no round begins.
    public func update(_ next: ConnectivitySettings) {
        state.value.settings = next
        state.value.planner.timing.interval = next.interval
        state.value.planner.checkNow(now: now())
        arm()
    }

    private func received(_ event: DaemonSubscription.Event) {
        switch event {
        case .connected(let socketPath, let version, _):
            log.info("connected to pathd \(version) at \(socketPath)")
            state.value.daemon = .connected(socketPath: socketPath)
            state.value.planner.connected()
        case .path(let update):
            state.value.planner.received(update.path, now: now())
        case .resync:
            break  // its path follows
        case .disconnected(let error):
            // One warning per outage, not one per retry: the back-off retries for ever.
            switch state.value.daemon {
            case .notYetTried: log.warning("pathd is not reachable: \(error); retrying until it answers")
            case .connected: log.warning("lost pathd: \(error); reconnecting")
            case .unreachable: break
            }
            state.value.daemon = .unreachable
            state.value.planner.disconnected()
        }
        arm()
    }

    /// Schedules the next round at the planner's due time.
    private func arm() {
        state.value.timerToken &+= 1
        guard state.value.settings.isEnabled, let due = state.value.planner.due else { return }
        let token = state.value.timerToken
        scheduler.schedule(after: due - now(), on: queue) { [self] in
            guard token == state.value.timerToken else { return }
            beginRound()
        }
    }

    private func beginRound() {
        let settings = state.value.settings
        guard let url = settings.url, let expected = settings.expected,
              case .connected(let socketPath) = state.value.daemon,
              let interfaces = state.value.planner.startRound(now: now()) else {
            arm()
            return
        }
        let timeout = settings.timeout
        worker.async { [self] in
            var results: [Connectivity] = []
            for interface in interfaces {
                let checkedAt = wallClock()
                let fetched = fetcher.fetch(url: url, interface: interface, timeout: timeout, expected: expected)
                results.append(ConnectivityClassifier.connectivity(of: fetched, expected: expected, url: url,
                                                                   interface: interface, checkedAt: checkedAt))
            }
            // Logged once pathd has answered: a line saying "reported" means pathd has it.
            var outcome = "reported"
            do {
                try reporter.report(results, to: socketPath)
            } catch {
                outcome = "not reported: \(error)"
            }
            for result in results {
                let interface = result.evidence?.interface ?? "?"
                let line = "\(interface): \(result.summary) (\(Self.describe(result.evidence))); \(outcome)"
                if outcome == "reported" { log.info(line) } else { log.warning(line) }
            }
            queue.async { [self] in
                state.value.planner.finishRound(now: now(), random: random())
                arm()
            }
        }
    }

    static func describe(_ evidence: ConnectivityEvidence?) -> String {
        guard let evidence else { return "no evidence" }
        var parts: [String] = []
        if let status = evidence.httpStatus { parts.append("HTTP \(status)") }
        if let error = evidence.error { parts.append(error) }
        parts.append("\(evidence.bytesReceived) bytes")
        parts.append("\(evidence.elapsedMilliseconds) ms")
        return parts.joined(separator: ", ")
    }
}

/// Where the probe stands with pathd, for its reports and its log (on the probe's queue).
enum DaemonLink {
    /// Before the first attempt ended.
    case notYetTried
    /// Connected: reports go to this socket.
    case connected(socketPath: String)
    /// The last attempt failed or the connection was lost (already logged); retrying.
    case unreachable
}

/// The origin of the probe's monotonic clock (any fixed instant will do).
public enum ProbeClock {
    public static let origin = ContinuousClock.now
}

extension UTCTime {
    /// The wall clock now (CLOCK_REALTIME), to the second: `SystemTimeSource`'s.
    @Sendable public static func now() -> UTCTime {
        SystemTimeSource().now().utc
    }
}

/// Reports over a connection of its own, one per round: connect, send each result as a
/// `reportConnectivity` request, read every reply.
public struct PathConnectionReporter: ConnectivityReporter {
    public init() {}

    public func report(_ results: [Connectivity], to socketPath: String) throws(PathClientError) {
        let connection = try PathConnection(socketPath: socketPath, timeout: .seconds(10))
        defer { connection.close() }
        for (number, result) in results.enumerated() {
            try connection.send(Request(.reportConnectivity(result), id: .integer(Int64(number))))
        }
        var answered = 0
        while answered < results.count {
            switch try connection.next() {
            case .reported:
                answered += 1
            case .error(let code, let message, _):
                throw PathClientError.refused(code, message)
            default:
                continue
            }
        }
    }
}
