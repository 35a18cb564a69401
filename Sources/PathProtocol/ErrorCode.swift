/// The closed set of error codes in `{"type":"error","code":…}` lines.
public enum ErrorCode: String, Hashable, Sendable, CaseIterable {
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
}
