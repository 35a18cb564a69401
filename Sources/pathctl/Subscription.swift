import CommandLineOptions
import Glibc
import PathSocketClient
import PathProtocol
import SystemCalls

/// A subscription that outlives a restart of pathd, for `monitor` and `wait`: when pathd
/// says `shuttingDown` or the connection ends, it says so on stderr, connects again (with
/// socket activation the socket stays, and the connect waits for the new daemon's hello)
/// and subscribes again, so the new daemon's path comes next.
///
/// Only a connection that was once up is retried: pathd unreachable at the start is
/// exit status 3 at once.
struct Subscription {
    /// The waits between attempts: 0.1 s doubling to 2 s, jittered as every client of a
    /// restarted daemon reconnects at once.
    static let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(2))
    /// Without a deadline (`monitor`), how long pathd may stay unreachable before giving up.
    static let reconnectWindow: Duration = .seconds(60)

    /// `--socket`, or nil for the search order (`PathConnection.connect(to:)`).
    let socketPath: String?
    let request: Request
    /// When to stop waiting (`wait --timeout`); nil waits for ever (`monitor`).
    let deadline: ContinuousClock.Instant?
    /// Whether a lost connection is made again (not for `wait --timeout 0`, which checks once).
    var reconnects = true

    enum Outcome {
        case finished(PathctlExitStatus)
        /// The deadline passed first.
        case timedOut
    }

    /// Hands each message to `handle` until it returns an exit status. An `error` line
    /// other than `shuttingDown` is a refusal once `handle` has seen it.
    func run(handle: (ServerMessage, _ line: [UInt8]) -> PathctlExitStatus?) throws(CommandError) -> Outcome {
        var connection: PathConnection
        do throws(PathClientError) {
            connection = try PathConnection.connect(to: socketPath, timeout: timeLeft)
        } catch {
            if error.isTimeout { return .timedOut }
            throw CommandError(error)
        }
        // Past the hello the connection was up: from here on, losing it means reconnecting.
        var lost = send(on: connection)
        while true {
            if lost == nil {
                switch read(connection) {
                case .message(.error(.shuttingDown, let text, _), _):
                    lost = "pathd is shutting down (\(text))"
                case .message(let message, let line):
                    if let status = handle(message, line) { return .finished(status) }
                    if case .error(let code, let text, _) = message { throw .refused(code, text) }
                    continue
                case .timedOut:
                    return .timedOut
                case .lost(let reason):
                    lost = reason
                }
            }
            connection.close()
            guard reconnects else { throw .unreachable("lost pathd: \(lost ?? "connection ended")") }
            writeError("pathctl: lost pathd: \(lost ?? "connection ended"); reconnecting\n")
            guard let next = try reconnect() else { return .timedOut }
            connection = next
            lost = nil
        }
    }

    /// Sends the subscription; the failure in words, nil when sent.
    private func send(on connection: PathConnection) -> String? {
        do throws(PathClientError) {
            try connection.send(request)
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

    /// The next message, waiting no longer than the deadline.
    private func read(_ connection: PathConnection) -> Read {
        do throws(PathClientError) {
            if let left = timeLeft {
                guard left > .zero else { return .timedOut }
                try connection.setTimeout(left)
            }
            let (message, line) = try connection.nextWithLine()
            return .message(message, line)
        } catch {
            return error.isTimeout ? .timedOut : .lost(error.description)
        }
    }

    /// What is left until the deadline; nil without one.
    private var timeLeft: Duration? {
        deadline.map { $0 - ContinuousClock.now }
    }

    /// Connects and subscribes again, retrying with a growing delay; nil when the
    /// deadline passed first. Without a deadline, gives up after `reconnectWindow`.
    private func reconnect() throws(CommandError) -> PathConnection? {
        let giveUp = deadline ?? ContinuousClock.now + Self.reconnectWindow
        var attempt = 0
        while true {
            attempt += 1
            do throws(PathClientError) {
                let connection = try PathConnection.connect(to: socketPath, timeout: timeLeft)
                try connection.send(request)
                let generation = connection.hello.map { " (generation \($0.generation))" } ?? ""
                writeError("pathctl: reconnected to pathd at \(connection.socketPath)\(generation)\n")
                return connection
            } catch {
                let left = giveUp - ContinuousClock.now
                guard left > .zero else {
                    if deadline != nil { return nil }
                    writeError("pathctl: pathd unreachable for \(Self.reconnectWindow.components.seconds) s; giving up\n")
                    throw CommandError(error)
                }
                pause(min(Self.backoff.delay(attempt: attempt, random: Double.random(in: 0..<1)), left))
            }
        }
    }

    /// Sleeps for `duration`, resuming after signals that interrupt it.
    private func pause(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && Errno.current == .interrupted {
            request = remaining
        }
    }
}
