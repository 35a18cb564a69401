// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Every line the daemon sends (docs/PROTOCOL.md).
public enum ServerMessage: Hashable, Sendable {
    /// First line on every connection.
    case hello(protocolVersion: Int, daemonVersion: String, generation: Generation)
    /// A path: the reply to `status`, and every line of a subscription.
    case path(PathUpdate, id: JSONValue?)
    /// Events were lost and the daemon re-read the kernel's state; the current path follows.
    case resync(reason: String, generation: Generation, id: JSONValue?)
    case pong(id: JSONValue?)
    /// The subscription `id` ended.
    case unsubscribed(id: JSONValue?)
    case error(code: ErrorCode, message: String, id: JSONValue?)
    /// The reply to `interfaces`: every link as the daemon sees it, in index order.
    case interfaces(generation: Generation, interfaces: [InterfaceReport], id: JSONValue?)
    /// The reply to a successful `reload`, with the configuration's warnings (file:line).
    case reloaded(warnings: [String], id: JSONValue?)
    /// The reply to `reportConnectivity`: the result is recorded (and published where it
    /// changes a verdict).
    case reported(id: JSONValue?)
    /// The reply to `metrics`: the exposition text in `format`.
    case metrics(format: Exposition.Format, text: String, id: JSONValue?)
    /// The reply to `history`: entries oldest first; `capacity` is how many the daemon
    /// keeps, `persistence` whether they survive a restart (a state directory) and if not why.
    case history(capacity: Int, persistence: HistoryPersistence, entries: [HistoryEntry], id: JSONValue?)
    /// The reply to `route`: the route to one destination, answered in `generation`.
    case route(RouteReport, generation: Generation, id: JSONValue?)
    /// A line of a route subscription: a `route` line with a `sequence`.
    case routeUpdate(RouteUpdate, id: JSONValue?)
    /// The reply to `networks`: the networks pathd has seen, with their raw facts (for
    /// privileged peers only); `capacity` is how many it keeps, `persistence` whether
    /// they survive a restart (a state directory) and if not why.
    case networks(capacity: Int, persistence: HistoryPersistence, networks: [SeenNetwork], id: JSONValue?)
    /// A message of a type a newer pathd sends and this version does not know, whole
    /// (docs/PROTOCOL.md, "Version rule"): a client skips it.
    case unrecognized(type: String, JSONValue)

    /// The `type` of each message on the wire: the one place its names are written, read
    /// by `encoded()` (and `EncodedPathLine`) and by `decode(line:)`, whose switch over
    /// it the compiler checks for a missing case. GoldenMessageTests fails while a kind
    /// has no line pinned in a golden file.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case hello, path, resync, pong, unsubscribed, error, interfaces, reloaded, reported, metrics, history, route,
             networks
    }

    /// A message of a type this version does not know.
    public var isUnrecognized: Bool {
        if case .unrecognized = self { true } else { false }
    }

    /// What a subscription acts on: its path or route lines, resyncs and errors.
    public enum ForSubscriber: Hashable, Sendable {
        case path(PathUpdate, id: JSONValue?)
        case route(RouteUpdate, id: JSONValue?)
        case resync(reason: String, generation: Generation, id: JSONValue?)
        case error(code: ErrorCode, message: String, id: JSONValue?)
    }

    /// The message as a subscriber reads it; nil for what every subscriber skips: the
    /// hello, the replies to other requests on the connection, and types a newer pathd
    /// sends (docs/PROTOCOL.md, "Version rule"). The one rule of every client that
    /// subscribes, so that a new message type changes none of them.
    public var forSubscriber: ForSubscriber? {
        switch self {
        case .path(let update, let id): .path(update, id: id)
        case .routeUpdate(let update, let id): .route(update, id: id)
        case .resync(let reason, let generation, let id): .resync(reason: reason, generation: generation, id: id)
        case .error(let code, let message, let id): .error(code: code, message: message, id: id)
        default: nil
        }
    }

    /// The line to send (path lines are better sent through `EncodedPathLine`, once per change).
    public func encoded() -> [UInt8] {
        var writer = JSONWriter()
        switch self {
        case .path(let update, let id):
            return EncodedPathLine(update).line(id: id)
        case .routeUpdate(let update, let id):
            return EncodedPathLine(update).line(id: id)
        case .hello(let protocolVersion, let daemonVersion, let generation):
            writer.beginMessage(.hello)
            writer.member("protocol", protocolVersion)
            writer.member("version", daemonVersion)
            writer.member("generation", generation.rawValue)
        case .resync(let reason, let generation, let id):
            writer.beginMessage(.resync)
            writer.member("reason", reason)
            writer.member("generation", generation.rawValue)
            if let id { writer.member("id", id) }
        case .pong(let id):
            writer.beginMessage(.pong)
            if let id { writer.member("id", id) }
        case .unsubscribed(let id):
            writer.beginMessage(.unsubscribed)
            if let id { writer.member("id", id) }
        case .reported(let id):
            writer.beginMessage(.reported)
            if let id { writer.member("id", id) }
        case .error(let code, let message, let id):
            writer.beginMessage(.error)
            writer.member("code", code.rawValue)
            writer.member("message", message)
            if let id { writer.member("id", id) }
        case .interfaces(let generation, let interfaces, let id):
            writer.beginMessage(.interfaces)
            writer.member("generation", generation.rawValue)
            writer.beginArray("interfaces")
            for report in interfaces { report.write(to: &writer) }
            writer.endArray()
            if let id { writer.member("id", id) }
        case .reloaded(let warnings, let id):
            writer.beginMessage(.reloaded)
            writer.beginArray("warnings")
            for warning in warnings { writer.element(warning) }
            writer.endArray()
            if let id { writer.member("id", id) }
        case .metrics(let format, let text, let id):
            writer.beginMessage(.metrics)
            writer.member("format", format.rawValue)
            writer.member("contentType", format.contentType)
            writer.member("text", text)
            if let id { writer.member("id", id) }
        case .history(let capacity, let persistence, let entries, let id):
            writer.beginMessage(.history)
            writer.kept(capacity: capacity, persistence: persistence)
            writer.beginArray("entries")
            for entry in entries { entry.write(to: &writer) }
            writer.endArray()
            if let id { writer.member("id", id) }
        case .route(let report, let generation, let id):
            writer.beginMessage(.route)
            report.write(to: &writer, generation: generation)
            if let id { writer.member("id", id) }
        case .networks(let capacity, let persistence, let networks, let id):
            writer.beginMessage(.networks)
            writer.kept(capacity: capacity, persistence: persistence)
            writer.beginArray("networks")
            for network in networks { network.write(to: &writer) }
            writer.endArray()
            if let id { writer.member("id", id) }
        case .unrecognized(_, let message):
            writer.value(message)
            return writer.finishLine()
        }
        writer.endObject()
        return writer.finishLine()
    }
}

/// A line from the daemon that a client could not understand: not JSON, or a message
/// of a known type without what that type must carry.
public struct MessageDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
}

extension ServerMessage {
    /// Parses one line from the daemon. Unknown fields are ignored, an unknown message
    /// type is `unrecognized`, an unknown enumerated value its type's `unrecognized`
    /// (docs/PROTOCOL.md, "Version rule": additive changes keep the protocol version).
    public static func decode<Bytes: Collection>(line: Bytes) throws(MessageDecodingError) -> ServerMessage
        where Bytes.Element == UInt8 {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw MessageDecodingError(description: "daemon sent invalid JSON: \(error)")
        }
        guard let type = value["type"]?.stringValue else {
            throw MessageDecodingError(description: "daemon sent a line without \"type\"")
        }
        let id = value["id"]
        func integer(_ key: String) throws(MessageDecodingError) -> Int64 {
            guard let number = value[key]?.integerValue else {
                throw MessageDecodingError(description: "\(type) line lacks integer \"\(key)\"")
            }
            return number
        }
        func string(_ key: String) throws(MessageDecodingError) -> String {
            guard let text = value[key]?.stringValue else {
                throw MessageDecodingError(description: "\(type) line lacks string \"\(key)\"")
            }
            return text
        }
        guard let kind = Kind(rawValue: type) else { return .unrecognized(type: type, value) }
        switch kind {
        case .hello:
            return .hello(protocolVersion: Int(try integer("protocol")), daemonVersion: try string("version"),
                          generation: Generation(rawValue: UInt64(clamping: try integer("generation"))))
        case .path:
            return .path(try PathUpdate.decode(value), id: id)
        case .resync:
            return .resync(reason: try string("reason"),
                           generation: Generation(rawValue: UInt64(clamping: try integer("generation"))), id: id)
        case .pong:
            return .pong(id: id)
        case .unsubscribed:
            return .unsubscribed(id: id)
        case .reported:
            return .reported(id: id)
        case .error:
            return .error(code: ErrorCode(rawValue: try string("code")), message: try string("message"), id: id)
        case .interfaces:
            guard let list = value["interfaces"]?.arrayValue else {
                throw MessageDecodingError(description: "interfaces line lacks array \"interfaces\"")
            }
            var reports: [InterfaceReport] = []
            for element in list { reports.append(try InterfaceReport.decode(element)) }
            return .interfaces(generation: Generation(rawValue: UInt64(clamping: try integer("generation"))),
                               interfaces: reports, id: id)
        case .reloaded:
            var warnings: [String] = []
            for element in value["warnings"]?.arrayValue ?? [] {
                guard let text = element.stringValue else {
                    throw MessageDecodingError(description: "reloaded line: warnings must be strings")
                }
                warnings.append(text)
            }
            return .reloaded(warnings: warnings, id: id)
        case .metrics:
            guard let format = Exposition.Format(rawValue: try string("format")) else {
                throw MessageDecodingError(description: "metrics line with an unknown format")
            }
            return .metrics(format: format, text: try string("text"), id: id)
        case .history:
            let (persistence, entries) = try kept("entries", in: value, HistoryEntry.decode)
            return .history(capacity: Int(clamping: try integer("capacity")), persistence: persistence,
                            entries: entries, id: id)
        case .route:
            let (report, generation) = try RouteReport.decode(value)
            // A subscription's line has a sequence; the reply to `route` has none.
            guard let member = value["sequence"], !member.isNull else {
                return .route(report, generation: generation, id: id)
            }
            guard let sequence = member.integerValue, let exact = UInt64(exactly: sequence) else {
                throw MessageDecodingError(description: "route line: invalid \"sequence\"")
            }
            return .routeUpdate(RouteUpdate(generation: generation, sequence: exact, report: report), id: id)
        case .networks:
            let (persistence, networks) = try kept("networks", in: value, SeenNetwork.decode)
            return .networks(capacity: Int(clamping: try integer("capacity")), persistence: persistence,
                             networks: networks, id: id)
        }
    }

    /// What a reply about something the daemon keeps (`history`, `networks`) says: whether
    /// it survives a restart, and its list under `key`, each element read by `decode`.
    private static func kept<Element>(_ key: String, in value: JSONValue,
                                      _ decode: (JSONValue) throws(MessageDecodingError) -> Element)
        throws(MessageDecodingError) -> (HistoryPersistence, [Element]) {
        guard let list = value[key]?.arrayValue, let persistent = value["persistent"]?.boolValue else {
            let type = value["type"]?.stringValue ?? "?"
            throw MessageDecodingError(description: "\(type) line lacks \"\(key)\" or \"persistent\"")
        }
        var elements: [Element] = []
        for element in list { elements.append(try decode(element)) }
        let persistence = persistent ? HistoryPersistence.persistent
            : .inMemory(because: value["notPersistentBecause"]?.stringValue)
        return (persistence, elements)
    }
}

extension JSONWriter {
    /// Opens a message's object with its `type`.
    mutating func beginMessage(_ kind: ServerMessage.Kind) {
        beginObject()
        member("type", kind.rawValue)
    }
}

extension JSONWriter {
    /// The members of a reply about something the daemon keeps (`history`, `networks`):
    /// how many it keeps, and whether they survive a restart.
    fileprivate mutating func kept(capacity: Int, persistence: HistoryPersistence) {
        member("capacity", capacity)
        member("persistent", persistence.isPersistent)
        // Added within version 1: present only with a reason, so earlier lines keep their bytes.
        if case .inMemory(let reason?) = persistence { member("notPersistentBecause", reason) }
    }
}
