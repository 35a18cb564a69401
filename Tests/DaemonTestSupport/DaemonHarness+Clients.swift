// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathSocketClient
import PathTestFixtures
import Testing

extension DaemonHarness {
    /// A new connection subscribed to the default path, and the first path line it got.
    public func connectAndSubscribe() throws -> (connection: PathConnection, first: PathUpdate) {
        let connection = try connect()
        try connection.send(Request(.subscribe(.path(.any))))
        return (connection, try connection.nextPath().update)
    }

    /// Flaps eth0's carrier `count` times in lockstep with `reader`: after each change the
    /// reader's next path line must be the one right after `last`. Returns the last line.
    /// Each change undoes the one `last` shows (carrier lost when satisfied, back when
    /// not), so every call publishes, however many came before.
    public func flapCarrier(_ count: Int, readingOn reader: PathConnection, after last: PathUpdate,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> PathUpdate {
        var last = last
        for _ in 0..<count {
            network.latest.emit([.linkChanged(last.path.status == .satisfied ? Fixture.eth0NoCarrier : Fixture.eth0())])
            let update = try reader.nextPath().update
            try #require(update.sequence == last.sequence + 1, sourceLocation: sourceLocation)
            last = update
        }
        return last
    }
}

extension PathConnection {
    /// The next path line, failing on anything else.
    public func nextPath(sourceLocation: SourceLocation = #_sourceLocation) throws -> (update: PathUpdate,
                                                                                       id: JSONValue?) {
        let message = try next()
        guard case .path(let update, let id) = message else {
            throw PathClientError("expected a path line, got \(message)")
        }
        return (update, id)
    }

    /// The next route subscription line, failing on anything else.
    public func nextRoute(sourceLocation: SourceLocation = #_sourceLocation) throws
        -> (update: RouteUpdate, id: JSONValue?) {
        let message = try next()
        guard case .routeUpdate(let update, let id) = message else {
            throw PathClientError("expected a route subscription line, got \(message)")
        }
        return (update, id)
    }

    /// Path lines until one satisfies `predicate` (each read fails after the connection's timeout).
    public func waitForPath(_ predicate: (Path) -> Bool) throws -> Path {
        while true {
            let update = try nextPath().update
            if predicate(update.path) { return update.path }
        }
    }

    /// Nothing is waiting on this connection: a ping's pong is the next line.
    public func expectNothingPending(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try send(Request(.ping, id: .string("probe")))
        let message = try next()
        #expect(message == .pong(id: .string("probe")), "a line was pending: \(message)",
                sourceLocation: sourceLocation)
    }
}
