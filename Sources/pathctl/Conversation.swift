// SPDX-License-Identifier: Apache-2.0
import PathSocketClient
import PathModel
import PathProtocol
import ServiceSupport
import SystemCalls

/// How a command fails; the exit status follows from the kind (see pathctl(1)).
enum CommandError: Error {
    case usage(String)
    /// pathd could not be reached, or the connection broke before the answer.
    case unreachable(String)
    /// pathd answered with an `error` line.
    case refused(ErrorCode, String)

    /// A client-library failure: a refusal when pathd answered with an error, pathd's
    /// silence when a wait for its answer ran out (`answerDeadline`, the
    /// only receive timeout pathctl sets outside `wait`), else unreachable.
    init(_ error: PathClientError) {
        if case .refused(let code, let message) = error.kind {
            self = .refused(code, message)
        } else if error.isTimeout {
            self = .noAnswer(socketPath: error.socketPath, within: answerDeadline)
        } else {
            self = .unreachable(error.description)
        }
    }

    /// pathd accepted the connection but did not answer in time: exit 3, as unreachable.
    static func noAnswer(socketPath: String?, within deadline: Duration) -> CommandError {
        .unreachable("pathd at \(socketPath ?? "its socket") did not answer within \(deadline.decimalSeconds) s")
    }

    var exitStatus: PathctlExitStatus {
        switch self {
        case .usage: .usage
        case .unreachable: .unreachable
        // A network pathd.conf does not name: the command line's mistake, found by pathd.
        case .refused(.unknownNetwork, _): .usage
        case .refused: .refused
        }
    }

    /// The one line printed after "pathctl: "; a refusal in the client library's wording.
    var message: String {
        switch self {
        case .usage(let text), .unreachable(let text): text
        case .refused(let code, let text): PathClientError.refused(code, text).description
        }
    }
}

/// How long pathd may take to say hello, and then to answer each request of a command
/// that asks once (status, interfaces, route, reload, metrics, history, `--version`,
/// `wait --timeout 0`) before pathctl gives up with exit 3. pathd answers from memory: a
/// request's round trip is well under a millisecond, its p99 a few milliseconds on a
/// loaded machine (docs/PERFORMANCE.md, "The route request"), and a socket-activated
/// pathd says hello once it has read the kernel's state. So only a hung daemon, or
/// something else on the socket, waits this long; and `systemctl reload pathd`
/// (ExecReload= runs `pathctl reload`) fails with this line well before systemd's own
/// 90 s timeout would kill it.
let answerDeadline: Duration = .seconds(10)

/// One exchange with pathd, as `status`, `interfaces` and `reload` have it: connect, send
/// `request`, and hand each message with its exact line to `handle` until it returns an
/// exit status. An `error` line ends the exchange as a refusal once `handle` has seen it
/// (so `--json` may pass it on); a failure to reach or read pathd makes it unreachable,
/// and so does silence: the hello and the reply each get `answerDeadline`.
func converse(_ global: GlobalOptions, _ request: Request,
              handle: (ServerMessage, _ line: [UInt8]) -> PathctlExitStatus?)
    throws(CommandError) -> PathctlExitStatus {
    let connection = try connectForAnswers(global.socketPath)
    do throws(PathClientError) {
        try connection.send(request)
    } catch {
        throw CommandError(error)
    }
    let deadline = ContinuousClock.now + answerDeadline
    while true {
        let (message, line) = try nextAnswer(on: connection, before: deadline)
        if let status = handle(message, line) { return status }
        if case .error(let code, let text, _) = message { throw .refused(code, text) }
    }
}

/// Connects for one-shot requests: the hello must come within `answerDeadline`.
func connectForAnswers(_ socketPath: String?) throws(CommandError) -> PathConnection {
    do throws(PathClientError) {
        return try PathConnection.connect(to: socketPath, timeout: answerDeadline)
    } catch {
        throw CommandError(error)
    }
}

/// The next message on `connection`, by `deadline` (lines pathd sends before its answer,
/// of types this pathctl skips, do not extend it).
func nextAnswer(on connection: PathConnection,
                before deadline: ContinuousClock.Instant) throws(CommandError) -> (ServerMessage, [UInt8]) {
    let left = deadline - ContinuousClock.now
    guard left > .zero else {
        throw .noAnswer(socketPath: connection.socketPath, within: answerDeadline)
    }
    do throws(PathClientError) {
        try connection.setTimeout(left)
        let (message, line) = try connection.nextWithLine()
        return (message, line)
    } catch {
        throw CommandError(error)
    }
}

/// Prints one of the daemon's lines as it came, for `--json`: its bytes, never re-encoded.
func echo(_ line: [UInt8]) {
    var bytes = line
    bytes.append(UInt8(ascii: "\n"))
    // A closed stdout (`pathctl monitor | head`) ends the output, as in `writeOut`.
    do { try FileDescriptor.standardOutput.writeAll(bytes) } catch {}
}

/// Writes text to stdout through write(2), whole, so `--json` output is never interleaved.
/// A closed stdout (`pathctl monitor | head`) ends the output, not the program's exit status.
func writeOut(_ text: String) {
    do { try FileDescriptor.standardOutput.writeAll(text.utf8) } catch {}
}

/// Writes one line to stderr: pathctl(1) promises one line per failure, so a message
/// that carries pathd's text (a `configInvalid` lists an error a line) is joined first.
/// Where stderr is the journal (`ExecReload=`, pathd-wait-online.service) the line
/// carries its priority, so a refused reload is an error there and a reconnect a notice.
func writeErrorLine(_ text: String, level: LogLevel = .error) {
    let prefix = stderrIsJournal ? "<\(level.priority)>" : ""
    // Nowhere left to report a failure to write to stderr.
    do { try FileDescriptor.standardError.writeAll((prefix + PeerText.oneLine(text) + "\n").utf8) } catch {}
}

/// Whether stderr is the journal, asked once.
private let stderrIsJournal = Logger.stderrIsJournal

extension Duration {
    /// The seconds as `--timeout` takes them, to the millisecond: "2", "0.25".
    var decimalSeconds: String {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let fraction = String(milliseconds % 1000)
        guard fraction != "0" else { return "\(milliseconds / 1000)" }
        let digits = String(repeating: "0", count: 3 - fraction.count) + fraction
        return "\(milliseconds / 1000)." + digits.reversed().drop { $0 == "0" }.reversed()
    }
}
