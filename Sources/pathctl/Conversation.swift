import PathSocketClient
import PathProtocol
import SystemCalls

/// How a command fails; the exit status follows from the kind (see pathctl(1)).
enum CommandError: Error {
    case usage(String)
    /// pathd could not be reached, or the connection broke before the answer.
    case unreachable(String)
    /// pathd answered with an `error` line.
    case refused(ErrorCode, String)

    /// A client-library failure: a refusal when pathd answered with an error, else unreachable.
    init(_ error: PathClientError) {
        if case .refused(let code, let message) = error.kind {
            self = .refused(code, message)
        } else {
            self = .unreachable(error.description)
        }
    }

    var exitStatus: PathctlExitStatus {
        switch self {
        case .usage: .usage
        case .unreachable: .unreachable
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

/// One exchange with pathd, as `status`, `interfaces` and `reload` have it: connect, send
/// `request`, and hand each message with its exact line to `handle` until it returns an
/// exit status. An `error` line ends the exchange as a refusal once `handle` has seen it
/// (so `--json` may pass it on); a failure to reach or read pathd makes it unreachable.
func converse(_ options: PathctlOptions, _ request: Request,
              handle: (ServerMessage, _ line: [UInt8]) -> PathctlExitStatus?)
    throws(CommandError) -> PathctlExitStatus {
    let connection: PathConnection
    do throws(PathClientError) {
        connection = try PathConnection.connect(to: options.socketPath)
        try connection.send(request)
    } catch {
        throw CommandError(error)
    }
    while true {
        let (message, line): (ServerMessage, [UInt8])
        do throws(PathClientError) {
            (message, line) = try connection.nextWithLine()
        } catch {
            throw CommandError(error)
        }
        if let status = handle(message, line) { return status }
        if case .error(let code, let text, _) = message { throw .refused(code, text) }
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

func writeError(_ text: String) {
    // Nowhere left to report a failure to write to stderr.
    do { try FileDescriptor.standardError.writeAll(text.utf8) } catch {}
}
