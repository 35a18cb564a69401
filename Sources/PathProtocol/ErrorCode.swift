// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The error codes in `{"type":"error","code":…}` lines. Open (docs/PROTOCOL.md,
/// "Version rule"): a newer pathd may send a code this version does not know.
public enum ErrorCode: OpenEnumeration {
    /// The line is not a JSON object.
    case badJSON
    /// `op` names no request this protocol version knows.
    case unknownOp
    /// A field has the wrong type or value.
    case badArgument
    /// The line exceeded `maximumRequestLineLength`; the connection is closed.
    case lineTooLong
    /// The daemon serves its maximum number of clients; the connection is closed.
    case tooManyClients
    /// The peer may not make this request.
    case permissionDenied
    /// The daemon is stopping.
    case shuttingDown
    /// `unsubscribe` named no subscription of this connection.
    case unknownSubscription
    /// `reload` found errors in the configuration files; the running configuration stays.
    case configInvalid
    /// A per-connection budget was reached (subscriptions per connection, the length of
    /// an id); the request is refused, the connection stays open.
    case limitExceeded
    /// `route`: the kernel could not be asked (the network monitor is being replaced);
    /// not an answer about the destination. The connection stays; ask again.
    case lookupFailed
    /// `status` or `subscribe`: the criteria name a network that no `[Network] Name=`
    /// of the daemon's configuration defines and that is no ID (pathctl: a usage error).
    case unknownNetwork
    /// A code a newer pathd sent, by its name; the message says what happened.
    case unrecognized(String)

    public static let allCases: [ErrorCode] = [
        .badJSON, .unknownOp, .badArgument, .lineTooLong, .tooManyClients, .permissionDenied, .shuttingDown,
        .unknownSubscription, .configInvalid, .limitExceeded, .lookupFailed, .unknownNetwork,
    ]

    public var rawValue: String {
        switch self {
        case .badJSON: "badJSON"
        case .unknownOp: "unknownOp"
        case .badArgument: "badArgument"
        case .lineTooLong: "lineTooLong"
        case .tooManyClients: "tooManyClients"
        case .permissionDenied: "permissionDenied"
        case .shuttingDown: "shuttingDown"
        case .unknownSubscription: "unknownSubscription"
        case .configInvalid: "configInvalid"
        case .limitExceeded: "limitExceeded"
        case .lookupFailed: "lookupFailed"
        case .unknownNetwork: "unknownNetwork"
        case .unrecognized(let name): name
        }
    }
}
