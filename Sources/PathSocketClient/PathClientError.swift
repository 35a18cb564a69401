// SPDX-License-Identifier: Apache-2.0
import PathProtocol

/// Why talking to the daemon failed, in words for a person, and what kind of failure
/// it was (so that `pathctl` can exit with the right status).
public struct PathClientError: Error, Hashable, CustomStringConvertible, Sendable {
    /// What kind of failure it was.
    public enum Kind: Hashable, Sendable {
        /// No daemon answered: no socket, nobody listening, permission denied.
        case unreachable
        /// The daemon answered with an `error` line (e.g. `tooManyClients` instead of
        /// `hello`): its code and message.
        case refused(ErrorCode, message: String)
        /// The wait for a line ran out (the connection's timeout).
        case timeout
        /// The daemon closed the connection, or it broke.
        case closed
        /// The daemon sent something this client cannot read.
        case protocolViolation
    }

    /// One line for a person, naming the socket or the daemon's reason.
    public let description: String
    /// What kind of failure it was.
    public let kind: Kind
    /// The socket of the daemon the failure concerns, when it happened on a connection
    /// made to it (a read that timed out or failed); nil before one was made.
    public let socketPath: String?

    /// A failure described by `description`; of kind `.protocolViolation` unless told.
    public init(_ description: String, kind: Kind = .protocolViolation, socketPath: String? = nil) {
        self.description = description
        self.kind = kind
        self.socketPath = socketPath
    }

    /// The wait for a line ran out, rather than failing.
    public var isTimeout: Bool { kind == .timeout }

    /// The daemon refused with `code` and `message`: the one wording for every client, on
    /// one line however many the message has (`kind` keeps it as sent).
    public static func refused(_ code: ErrorCode, _ message: String) -> PathClientError {
        PathClientError("pathd refused: \(PeerText.oneLine(message)) [\(code.rawValue)]",
                        kind: .refused(code, message: message))
    }
}
