import PathModel

/// The requests a client can send, one JSON object per line (docs/PROTOCOL.md).
public enum RequestOp: String, Hashable, Sendable, CaseIterable {
    case status
    case subscribe
    case unsubscribe
    case ping
    /// Every link as the daemon sees it, with why each is or is not usable.
    case interfaces
    /// Read the configuration files again (root and the daemon's user only).
    case reload
    /// A connectivity check's result, from pathd-probe (root and the daemon's user only).
    case reportConnectivity
    /// The daemon's metrics as exposition text (OpenMetrics or Prometheus 0.0.4).
    case metrics
    /// The last changes of the default path, with the daemon's start and stop marks.
    case history
    /// The route the kernel would take to one address, judged as a path is.
    case route
}

public struct Request: Hashable, Sendable {
    public var op: RequestOp
    /// Echoed in the reply (and in every line of a subscription), any JSON scalar.
    public var id: JSONValue?
    public var criteria: Criteria
    /// What `reportConnectivity` reports (required there, refused elsewhere).
    public var connectivity: Connectivity?
    /// `metrics`: the exposition format; nil for OpenMetrics.
    public var format: Exposition.Format?
    /// `history`: only entries whose wall-clock time is at or after this (since the epoch).
    public var since: Duration?
    /// `history`: at most this many entries, the newest.
    public var limit: Int?
    /// `route`: the address asked about (required there, refused elsewhere).
    public var destination: IPAddress?

    public init(op: RequestOp, id: JSONValue? = nil, criteria: Criteria = .any, connectivity: Connectivity? = nil,
                format: Exposition.Format? = nil, since: Duration? = nil, limit: Int? = nil,
                destination: IPAddress? = nil) {
        self.op = op
        self.id = id
        self.criteria = criteria
        self.connectivity = connectivity
        self.format = format
        self.since = since
        self.limit = limit
        self.destination = destination
    }
}

/// A request that could not be understood: the code and message of the error line,
/// with the id when one could be read.
public struct RequestError: Error, Hashable, Sendable {
    public var code: ErrorCode
    public var message: String
    public var id: JSONValue?
}

extension Request {
    /// Whether a line holds nothing but spaces and tabs (or nothing): such a line is no
    /// request and gets no reply (docs/PROTOCOL.md).
    public static func isBlank(_ line: [UInt8]) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }

    /// Parses one request line (without its newline).
    public static func parse<Bytes: Collection>(line: Bytes) throws(RequestError) -> Request where Bytes.Element == UInt8 {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch where error.isIntegerOutOfRange {
            // Echoing it as a double would not give back what the client sent.
            throw RequestError(code: .badArgument,
                               message: "integers must fit in 64 bits (\(Int64.min) to \(Int64.max)); use a string id: \(error)",
                               id: nil)
        } catch {
            throw RequestError(code: .badJSON, message: "request is not valid JSON: \(error)", id: nil)
        }
        guard case .object(let members) = value else {
            throw RequestError(code: .badJSON, message: "request must be a JSON object, got \(value.typeName)", id: nil)
        }
        let id = members["id"]
        if let id {
            switch id {
            case .string, .integer, .double, .null: break
            default: throw RequestError(code: .badArgument, message: "\"id\" must be a string, a number or null", id: nil)
            }
            let encodedLength = EncodedPathLine.idMember(id).count - 6  // without `,"id":`
            if encodedLength > maximumIDLength {
                throw RequestError(code: .limitExceeded,
                                   message: "\"id\" is \(encodedLength) bytes long; at most \(maximumIDLength) are echoed",
                                   id: nil)
            }
        }
        guard let opValue = members["op"] else {
            throw RequestError(code: .badArgument, message: "request has no \"op\"", id: id)
        }
        guard let opName = opValue.stringValue else {
            throw RequestError(code: .badArgument, message: "\"op\" must be a string, got \(opValue.typeName)", id: id)
        }
        guard let op = RequestOp(rawValue: opName) else {
            throw RequestError(code: .unknownOp, message: "unknown op \"\(opName)\"", id: id)
        }
        var criteria = Criteria.any
        if let criteriaValue = members["criteria"], !criteriaValue.isNull {
            guard op == .subscribe || op == .status else {
                throw RequestError(code: .badArgument, message: "\"criteria\" applies to status and subscribe only", id: id)
            }
            criteria = try parseCriteria(criteriaValue, id: id)
        }
        var connectivity: Connectivity?
        if let connectivityValue = members["connectivity"] {
            guard op == .reportConnectivity else {
                throw RequestError(code: .badArgument, message: "\"connectivity\" applies to reportConnectivity only", id: id)
            }
            do {
                connectivity = try Connectivity.decode(connectivityValue, strict: true)
            } catch {
                throw RequestError(code: .badArgument, message: error.message, id: id)
            }
        } else if op == .reportConnectivity {
            throw RequestError(code: .badArgument, message: "reportConnectivity needs a \"connectivity\" object", id: id)
        }
        var request = Request(op: op, id: id, criteria: criteria, connectivity: connectivity)
        try request.parseOptions(members, id: id)
        try request.parseDestination(members["destination"], id: id)
        return request
    }

    /// `format` (metrics), `since` and `limit` (history): each only for its request.
    private mutating func parseOptions(_ members: [String: JSONValue], id: JSONValue?) throws(RequestError) {
        func only(_ field: String, for wanted: RequestOp) throws(RequestError) {
            guard op == wanted else {
                throw RequestError(code: .badArgument, message: "\"\(field)\" applies to \(wanted.rawValue) only", id: id)
            }
        }
        if let value = members["format"], !value.isNull {
            try only("format", for: .metrics)
            guard let name = value.stringValue, let known = Exposition.Format(rawValue: name) else {
                let names = Exposition.Format.allCases.map(\.rawValue).joined(separator: " or ")
                throw RequestError(code: .badArgument, message: "\"format\" must be \(names)", id: id)
            }
            format = known
        }
        if let value = members["since"], !value.isNull {
            try only("since", for: .history)
            switch value {
            case .integer(let whole): since = .seconds(whole)
            case .double(let number) where number.isFinite && abs(number) < 1e15: since = .seconds(fractional: number)
            default:
                throw RequestError(code: .badArgument,
                                   message: "\"since\" must be a time in seconds since the epoch (a number)", id: id)
            }
        }
        if let value = members["limit"], !value.isNull {
            try only("limit", for: .history)
            guard let number = value.integerValue, number >= 0 else {
                throw RequestError(code: .badArgument, message: "\"limit\" must be an integer of 0 or more", id: id)
            }
            limit = Int(clamping: number)
        }
    }

    /// `destination` (route): an IPv4 or IPv6 address literal, never a name: the daemon
    /// resolves nothing (a resolver may block, and a name may have many addresses).
    private mutating func parseDestination(_ value: JSONValue?, id: JSONValue?) throws(RequestError) {
        guard let value, !value.isNull else {
            if op == .route {
                throw RequestError(code: .badArgument, message: "route needs a \"destination\": an IP address", id: id)
            }
            return
        }
        guard op == .route else {
            throw RequestError(code: .badArgument, message: "\"destination\" applies to route only", id: id)
        }
        guard let text = value.stringValue else {
            throw RequestError(code: .badArgument,
                               message: "destination must be an IP address as a string, got \(value.typeName)", id: id)
        }
        if text.contains("%") {
            throw RequestError(code: .badArgument,
                               message: "destination must be an IP address without a zone (\"%eth0\"): zones are not supported",
                               id: id)
        }
        guard let address = IPAddress(text) else {
            throw RequestError(code: .badArgument,
                               message: "destination must be an IP address; resolve names first", id: id)
        }
        destination = address
    }

    private static func parseCriteria(_ value: JSONValue, id: JSONValue?) throws(RequestError) -> Criteria {
        guard case .object(let members) = value else {
            throw RequestError(code: .badArgument, message: "\"criteria\" must be an object", id: id)
        }
        func type(_ value: JSONValue, field: String) throws(RequestError) -> InterfaceType {
            guard let name = value.stringValue, let type = InterfaceType(rawValue: name) else {
                let known = InterfaceType.allCases.map(\.rawValue).joined(separator: ", ")
                throw RequestError(code: .badArgument, message: "\(field) must be one of \(known)", id: id)
            }
            return type
        }
        var criteria = Criteria.any
        for (key, member) in members {
            switch key {
            case "requiredInterfaceType":
                if !member.isNull { criteria.requiredInterfaceType = try type(member, field: key) }
            case "prohibitedInterfaceTypes":
                guard let list = member.arrayValue else {
                    throw RequestError(code: .badArgument, message: "prohibitedInterfaceTypes must be an array", id: id)
                }
                for element in list { criteria.prohibitedInterfaceTypes.insert(try type(element, field: key)) }
            default:
                throw RequestError(code: .badArgument, message: "unknown criteria field \"\(key)\"", id: id)
            }
        }
        return criteria
    }

    /// The request as a line, for clients.
    public func encoded() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("op", op.rawValue)
        if let id { writer.member("id", id) }
        if criteria != .any {
            writer.beginObject("criteria")
            if let required = criteria.requiredInterfaceType { writer.member("requiredInterfaceType", required.rawValue) }
            if !criteria.prohibitedInterfaceTypes.isEmpty {
                writer.beginArray("prohibitedInterfaceTypes")
                for type in criteria.prohibitedInterfaceTypes.map(\.rawValue).sorted() { writer.element(type) }
                writer.endArray()
            }
            writer.endObject()
        }
        if let connectivity { connectivity.write(to: &writer, key: "connectivity") }
        if let format { writer.member("format", format.rawValue) }
        if let since { writer.member("since", seconds: since) }
        if let limit { writer.member("limit", limit) }
        if let destination { writer.member("destination", destination.description) }
        writer.endObject()
        return writer.finishLine()
    }
}
