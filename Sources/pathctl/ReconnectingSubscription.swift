// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathSocketClient
import PathProtocol
import SystemCalls

/// A subscription that outlives a restart of pathd, for `monitor` and `wait`: when pathd
/// says `shuttingDown` or the connection ends, it says so on stderr, connects again (with
/// socket activation the socket stays, and the connect waits for the new daemon's hello)
/// and subscribes again, so the new daemon's path comes next. Several subscriptions may
/// share the connection (`monitor --route`): `requests` gives the ones to make on each
/// connection, and `run`'s handler may send more (or unsubscribe) on the current one.
///
/// Only a connection that was once up is retried: pathd unreachable at the start is
/// exit status 3 at once, and so is one that stays silent (no hello, or no first path)
/// for `answerDeadline` when the caller has no deadline (`monitor`); a silent daemon met
/// on a reconnect is one more failed attempt. Retries follow the library's
/// `ReconnectSchedule` and `Backoff.standard` on its `Scheduler`'s clock, as
/// `DaemonSubscription` does: every failure waits, so a daemon that fails at once (a line
/// this client cannot read, a refused hello, a close) is retried ever more slowly, never
/// in a loop.
///
/// `TimedOut` is what a passed deadline gives: `Timeout` with a deadline (`wait`), `Never`
/// without one (`monitor`), so that only a subscription with a deadline can time out.
struct ReconnectingSubscription<TimedOut> {
    /// Without a deadline (`monitor`), how long pathd may stay unreachable before giving up.
    static var reconnectWindow: Duration { .seconds(60) }

    /// `--socket`, or nil for the search order (`PathConnection.connect(to:)`).
    let socketPath: String?
    /// The subscriptions to make on each connection, asked at each (re)connect.
    let requests: () -> [Request]
    /// Whether a lost connection is made again (not for `wait --timeout 0`, which checks once).
    let reconnects: Bool
    /// The clock of every wait and deadline.
    let scheduler: any Scheduler
    /// When to stop waiting (`wait --timeout`), and what stopping gives; nil waits for
    /// ever (`monitor`).
    private let deadline: Deadline?

    struct Deadline {
        let instant: ContinuousClock.Instant
        /// The outcome when `instant` passed. `socketPath`: the socket last tried (nil
        /// when not known); `saidHello`: whether any daemon said hello meanwhile.
        let passed: (_ socketPath: String?, _ saidHello: Bool) -> TimedOut
    }

    private init(socketPath: String?, requests: @escaping () -> [Request], deadline: Deadline?, reconnects: Bool,
                 scheduler: any Scheduler) {
        self.socketPath = socketPath
        self.requests = requests
        self.reconnects = reconnects
        self.scheduler = scheduler
        self.deadline = deadline
    }

    enum Outcome {
        case finished(PathctlExitStatus)
        /// The deadline passed first.
        case timedOut(TimedOut)
    }

    /// Hands each message a subscriber acts on (`ServerMessage.forSubscriber`) to `handle`
    /// until it returns an exit status. An `error` line other than `shuttingDown` is a
    /// refusal once `handle` has seen it.
    func run(handle: (ServerMessage.ForSubscriber, _ line: [UInt8]) -> PathctlExitStatus?)
        throws(CommandError) -> Outcome {
        try run { message, line, _ in handle(message, line) }
    }

    /// The outcome when the deadline passed: nil without one (which never passes).
    private func timedOut(_ socketPath: String?, saidHello: Bool) -> Outcome? {
        deadline.map { .timedOut($0.passed(socketPath, saidHello)) }
    }

    /// `run` whose handler may send requests on the current connection (`send` returns
    /// false when the connection broke; the next line read then says so, and what
    /// `requests` gives is sent again on the next connection).
    func run(handle: (ServerMessage.ForSubscriber, _ line: [UInt8], _ send: (Request) -> Bool) -> PathctlExitStatus?)
        throws(CommandError) -> Outcome {
        var connection: PathConnection
        do throws(PathClientError) {
            connection = try PathConnection.connect(to: socketPath, timeout: timeLeft ?? answerDeadline)
        } catch {
            guard error.isTimeout else { throw CommandError(error) }
            guard let outcome = timedOut(error.socketPath, saidHello: false) else {
                throw .noAnswer(socketPath: error.socketPath, within: answerDeadline)
            }
            return outcome
        }
        // Past the hello the connection was up: from here on, losing it means reconnecting.
        var schedule = ReconnectSchedule(backoff: .standard)
        var lost = send(on: connection)
        if lost == nil { schedule.connected(at: scheduler.now()) }
        // Without a deadline, each connection's first answer (the path the subscription
        // starts with) must come within `answerDeadline`; a daemon that says hello and
        // then nothing is not waited on for ever.
        var awaitingFirstAnswer = true
        var everAnswered = false
        while true {
            if lost == nil {
                switch read(connection, awaitingFirstAnswer: awaitingFirstAnswer) {
                case .message(.error(.shuttingDown, let text, _), _):
                    lost = "pathd is shutting down (\(text))"
                case .message(let message, let line):
                    awaitingFirstAnswer = false
                    everAnswered = true
                    guard let message = message.forSubscriber else { continue }
                    let send = { (request: Request) -> Bool in
                        do throws(PathClientError) {
                            try connection.send(request)
                            return true
                        } catch {
                            return false
                        }
                    }
                    if let status = handle(message, line, send) { return .finished(status) }
                    if case .error(let code, let text, _) = message { throw .refused(code, text) }
                    continue
                case .timedOut:
                    if let outcome = timedOut(connection.socketPath, saidHello: true) { return outcome }
                    let within = answerDeadline
                    guard everAnswered else { throw .noAnswer(socketPath: connection.socketPath, within: within) }
                    lost = "pathd at \(connection.socketPath) did not answer within \(within.decimalSeconds) s"
                case .lost(let reason):
                    lost = reason
                }
            }
            connection.close()
            guard reconnects else { throw .unreachable("lost pathd: \(lost ?? "connection ended")") }
            writeErrorLine("pathctl: lost pathd: \(lost ?? "connection ended"); reconnecting", level: .notice)
            switch try reconnect(&schedule, lastTried: connection.socketPath) {
            case .connected(let next): connection = next
            case .deadlinePassed(let outcome): return outcome
            }
            lost = nil
            awaitingFirstAnswer = true
        }
    }

    /// Sends the subscriptions; the failure in words, nil when sent.
    private func send(on connection: PathConnection) -> String? {
        do throws(PathClientError) {
            for request in requests() { try connection.send(request) }
            return nil
        } catch {
            return error.description
        }
    }

    private enum Read {
        case message(ServerMessage, [UInt8])
        case timedOut
        /// The connection ended or broke.
        case lost(String)
    }

    /// The next message, waiting no longer than the deadline, or without one no longer
    /// than `answerDeadline` for a connection's first answer and for ever after it.
    private func read(_ connection: PathConnection, awaitingFirstAnswer: Bool) -> Read {
        do throws(PathClientError) {
            if let left = timeLeft {
                guard left > .zero else { return .timedOut }
                try connection.setTimeout(left)
            } else {
                try connection.setTimeout(awaitingFirstAnswer ? answerDeadline : nil)
            }
            let (message, line) = try connection.nextWithLine()
            return .message(message, line)
        } catch {
            return error.isTimeout ? .timedOut : .lost(error.description)
        }
    }

    /// What is left until the deadline; nil without one.
    private var timeLeft: Duration? {
        deadline.map { $0.instant - scheduler.now() }
    }

    private enum Reconnected {
        case connected(PathConnection)
        case deadlinePassed(Outcome)
    }

    /// Connects and subscribes again, each attempt after the wait `schedule` gives,
    /// until the deadline passes. Without a deadline, gives up after `reconnectWindow`.
    private func reconnect(_ schedule: inout ReconnectSchedule,
                           lastTried: String) throws(CommandError) -> Reconnected {
        let giveUp = deadline?.instant ?? scheduler.now() + Self.reconnectWindow
        var lastFailure: PathClientError?
        while true {
            let wait = schedule.failed(at: scheduler.now(), random: Double.random(in: 0..<1))
            let left = giveUp - scheduler.now()
            if wait >= left {
                if let outcome = timedOut(lastTried, saidHello: true) {
                    pause(max(left, .zero))
                    return .deadlinePassed(outcome)
                }
                writeErrorLine("pathctl: pathd unreachable for \(Self.reconnectWindow.decimalSeconds) s; giving up")
                throw lastFailure.map(CommandError.init) ?? .unreachable("lost pathd")
            }
            pause(wait)
            do throws(PathClientError) {
                let connection = try PathConnection.connect(to: socketPath,
                                                            timeout: timeLeft ?? answerDeadline)
                for request in requests() { try connection.send(request) }
                schedule.connected(at: scheduler.now())
                let generation = connection.hello.map { " (generation \($0.generation))" } ?? ""
                writeErrorLine("pathctl: reconnected to pathd at \(connection.socketPath)\(generation)", level: .notice)
                return .connected(connection)
            } catch {
                lastFailure = error
            }
        }
    }

    /// Waits `duration` on the scheduler's clock.
    private func pause(_ duration: Duration) {
        let done = DispatchSemaphore(value: 0)
        scheduler.schedule(after: duration, on: .global()) { done.signal() }
        done.wait()
    }
}

/// Why a subscription with a deadline stopped: the socket last tried (nil when not
/// known), and whether any daemon said hello meanwhile, so that a daemon that accepted
/// and stayed silent is not taken for an unsatisfied path.
struct Timeout {
    let socketPath: String?
    let saidHello: Bool
}

extension ReconnectingSubscription where TimedOut == Timeout {
    /// Gives up when `timeout` has passed.
    init(socketPath: String?, request: Request, timeout: Duration, reconnects: Bool = true,
         scheduler: any Scheduler = DispatchScheduler()) {
        self.init(socketPath: socketPath, requests: { [request] }, timeout: timeout, reconnects: reconnects,
                  scheduler: scheduler)
    }

    init(socketPath: String?, requests: @escaping () -> [Request], timeout: Duration, reconnects: Bool = true,
         scheduler: any Scheduler = DispatchScheduler()) {
        self.init(socketPath: socketPath, requests: requests,
                  deadline: Deadline(instant: scheduler.now() + timeout) { Timeout(socketPath: $0, saidHello: $1) },
                  reconnects: reconnects, scheduler: scheduler)
    }
}

extension ReconnectingSubscription where TimedOut == Never {
    /// Runs until the handler gives an exit status (or pathd is lost for good).
    init(socketPath: String?, requests: @escaping () -> [Request], scheduler: any Scheduler = DispatchScheduler()) {
        self.init(socketPath: socketPath, requests: requests, deadline: nil, reconnects: true, scheduler: scheduler)
    }

    init(socketPath: String?, request: Request) {
        self.init(socketPath: socketPath, requests: { [request] })
    }

    /// `run` for a subscription that cannot time out: the handler's exit status.
    func runToEnd(handle: (ServerMessage.ForSubscriber, _ line: [UInt8], _ send: (Request) -> Bool)
        -> PathctlExitStatus?) throws(CommandError) -> PathctlExitStatus {
        switch try run(handle: handle) {
        case .finished(let status): status
        }
    }
}
