import Glibc
import PathSocketClient
import PathModel
import PathProtocol

/// Options every verb takes.
struct GlobalOptions {
    var socketPath: String?
    var json = false
    /// --require-type / --prohibit-type: the question status, monitor and wait ask.
    var criteria = Criteria.any
    /// --timeout for wait; nil waits for ever.
    var timeout: Duration?
}

/// How a verb fails; the exit status follows from the kind (see pathctl(1)).
enum CommandError: Error {
    /// Bad command line: exit 2.
    case usage(String)
    /// The daemon could not be reached or said something unusable: exit 1.
    case failure(String)

    var exitStatus: Int32 {
        switch self {
        case .usage: 2
        case .failure: 1
        }
    }

    var message: String {
        switch self {
        case .usage(let text), .failure(let text): text
        }
    }
}

/// One verb of pathctl: `status`, `monitor`, … (as wireguard-tools' subcommand table).
struct Verb: Sendable {
    let name: String
    let summary: String
    /// Whether --require-type and --prohibit-type mean something to the verb.
    var takesCriteria = false
    /// Whether --timeout means something to the verb.
    var takesTimeout = false
    let run: @Sendable (GlobalOptions) throws(CommandError) -> Int32
}

/// One exchange with pathd, as every verb but `wait` has it: connect, send `request`,
/// and hand each message with its exact line to `handle` until it returns an exit
/// status. An `error` line ends the exchange as a failure once `handle` has seen it (so
/// `--json` may pass it on), as does any failure to reach or read pathd.
func converse(_ options: GlobalOptions, _ request: Request,
              handle: (ServerMessage, _ line: [UInt8]) -> Int32?) throws(CommandError) -> Int32 {
    do throws(PathClientError) {
        let connection = try PathConnection.connect(to: options.socketPath)
        try connection.send(request)
        while true {
            let (message, line) = try connection.nextWithLine()
            if let status = handle(message, line) { return status }
            if case .error(let code, let text, _) = message { throw .refused(code, text) }
        }
    } catch {
        throw CommandError.failure(error.description)
    }
}


/// Prints one of the daemon's lines as it came, for `--json`.
func echo(_ line: [UInt8]) {
    writeOut(String(decoding: line, as: UTF8.self) + "\n")
}

/// Writes text to stdout through write(2), whole, so `--json` output is never interleaved.
func writeOut(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        bytes = bytes.dropFirst(written)
    }
}

func writeError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

