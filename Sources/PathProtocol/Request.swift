// SPDX-License-Identifier: Apache-2.0
import PathModel

/// One request a client sends, one JSON object per line (docs/PROTOCOL.md, "Requests").
public struct Request: Hashable, Sendable {
    /// What is asked, with exactly the fields of that op.
    public var op: RequestOp
    /// Echoed in the reply (and in every line of a subscription), any JSON scalar.
    public var id: JSONValue?

    public init(_ op: RequestOp, id: JSONValue? = nil) {
        self.op = op
        self.id = id
    }
}

/// The requests a client can send, each with its own fields (docs/PROTOCOL.md).
public enum RequestOp: Hashable, Sendable {
    /// The path under `criteria`, once.
    case status(Criteria)
    /// A subscription: its first line now and another at each change of what it is to.
    case subscribe(Subscription)
    /// Ends the subscriptions that carry the request's id.
    case unsubscribe
    case ping
    /// Every link as the daemon sees it, with why each is or is not usable.
    case interfaces
    /// Read the configuration files again (root and the daemon's user only).
    case reload
    /// A connectivity check's result, from pathd-probe (root and the daemon's user only).
    case reportConnectivity(Connectivity)
    /// The daemon's metrics as exposition text; nil asks for the default, OpenMetrics.
    case metrics(format: Exposition.Format?)
    /// The last changes of the default path, with the daemon's start and stop marks:
    /// only those at or after `since` (wall clock, since the epoch), at most `limit`, the newest.
    case history(since: Duration?, limit: Int?)
    /// The route the kernel would take to one address, judged as a path is; for a
    /// link-scoped IPv6 address (`IPAddress.isLinkScoped`), through `interface`, its
    /// zone ("eth0" or an index in decimal, as after "%" in "fe80::1%eth0") if given.
    case route(destination: IPAddress, interface: String? = nil)
    /// A DHCP lease's facts from a DHCP client's hook, or its end, for the link
    /// `interface` (a name, or an index in decimal): hints about its network (root and
    /// the daemon's own user only).
    case reportLease(interface: String, LeaseReport)
    /// The networks pathd has seen, with the facts their IDs were computed from (root and
    /// the daemon's own user only).
    case networks

    /// What a `subscribe` is to, told apart on the wire by its fields: `criteria` (or
    /// none) for a path, `destination` (and `interface`) for a route.
    public enum Subscription: Hashable, Sendable {
        /// The path under `criteria`.
        case path(Criteria)
        /// The `route` answer for one address (and, for a link-scoped one, its zone).
        case route(destination: IPAddress, interface: String? = nil)
    }

    /// The op's name on the wire: one name per case above, spelled as the case is (the
    /// raw value is the identifier, so no string is typed). `name` maps each case to its
    /// name and `Request.parse` each name to a case, both exhaustive switches, so the
    /// compiler (no test) finds a case or a name left out of either direction; the golden
    /// files (Tests/PathProtocolTests/Golden) pin the bytes.
    public enum Name: String, Hashable, Sendable, CaseIterable {
        case status, subscribe, unsubscribe, ping, interfaces, reload, reportConnectivity, metrics, history, route,
             reportLease, networks
    }

    public var name: Name {
        switch self {
        case .status: .status
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .ping: .ping
        case .interfaces: .interfaces
        case .reload: .reload
        case .reportConnectivity: .reportConnectivity
        case .metrics: .metrics
        case .history: .history
        case .route: .route
        case .reportLease: .reportLease
        case .networks: .networks
        }
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
    public static func parse<Bytes: Collection>(line: Bytes) throws(RequestError) -> Request
        where Bytes.Element == UInt8 {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch where error.isIntegerOutOfRange {
            // Echoing it as a double would not give back what the client sent.
            let range = "\(Int64.min) to \(Int64.max)"
            throw RequestError(code: .badArgument,
                               message: "integers must fit in 64 bits (\(range)); use a string id: \(error)",
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
            default:
                throw RequestError(code: .badArgument, message: "\"id\" must be a string, a number or null", id: nil)
            }
            let encodedLength = EncodedPathLine.idMember(id).count - 6  // without `,"id":`
            if encodedLength > maximumIDLength {
                throw RequestError(code: .limitExceeded,
                                   message: "\"id\" is \(encodedLength) bytes long; "
                                       + "at most \(maximumIDLength) are echoed",
                                   id: nil)
            }
        }
        guard let opValue = members["op"] else {
            throw RequestError(code: .badArgument, message: "request has no \"op\"", id: id)
        }
        guard let opName = opValue.stringValue else {
            throw RequestError(code: .badArgument, message: "\"op\" must be a string, got \(opValue.typeName)", id: id)
        }
        guard let name = RequestOp.Name(rawValue: opName) else {
            throw RequestError(code: .unknownOp, message: "unknown op \"\(opName)\"", id: id)
        }
        var fields = RequestFields(members: members, id: id)
        try fields.refuseUnknown(op: name)
        let op: RequestOp
        switch name {
        case .status: op = .status(try fields.criteria())
        case .subscribe: op = .subscribe(try fields.subscription())
        case .unsubscribe: op = .unsubscribe
        case .ping: op = .ping
        case .interfaces: op = .interfaces
        case .reload: op = .reload
        case .reportConnectivity: op = .reportConnectivity(try fields.connectivity())
        case .metrics: op = .metrics(format: try fields.format())
        case .history: op = .history(since: try fields.since(), limit: try fields.limit())
        case .route: op = try fields.route()
        case .reportLease: op = try fields.reportLease()
        case .networks: op = .networks
        }
        try fields.refuseOthers()
        return Request(op, id: id)
    }

    /// The request as a line, for clients.
    public func encoded() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("op", op.name.rawValue)
        if let id { writer.member("id", id) }
        switch op {
        case .status(let criteria), .subscribe(.path(let criteria)):
            guard criteria != .any else { break }
            writer.beginObject("criteria")
            if let required = criteria.requiredInterfaceType {
                writer.member("requiredInterfaceType", required.rawValue)
            }
            if !criteria.prohibitedInterfaceTypes.isEmpty {
                writer.beginArray("prohibitedInterfaceTypes")
                for type in criteria.prohibitedInterfaceTypes.map(\.rawValue).sorted() { writer.element(type) }
                writer.endArray()
            }
            // Only when set: a daemon older than these fields refuses them (badArgument),
            // and a request without them is understood by every daemon of protocol 1.
            if criteria.prohibitExpensivePaths { writer.member("prohibitExpensivePaths", true) }
            if criteria.prohibitConstrainedPaths { writer.member("prohibitConstrainedPaths", true) }
            if let network = criteria.requiredNetwork { writer.member("requiredNetwork", network) }
            if !criteria.prohibitedNetworks.isEmpty {
                writer.beginArray("prohibitedNetworks")
                for network in criteria.prohibitedNetworks.sorted() { writer.element(network) }
                writer.endArray()
            }
            writer.endObject()
        case .reportConnectivity(let connectivity):
            connectivity.write(to: &writer, key: "connectivity")
        case .metrics(let format):
            if let format { writer.member("format", format.rawValue) }
        case .history(let since, let limit):
            if let since { writer.member("since", seconds: since) }
            if let limit { writer.member("limit", limit) }
        case .route(let destination, let interface), .subscribe(.route(let destination, let interface)):
            writer.member("destination", destination)
            if let interface { writer.member("interface", interface) }
        case .reportLease(let interface, let report):
            writer.member("interface", interface)
            report.write(to: &writer, key: "lease")
        case .unsubscribe, .ping, .interfaces, .reload, .networks:
            break
        }
        writer.endObject()
        return writer.finishLine()
    }
}

/// The fields of one request beyond `op` and `id`, read by its op. A field no op takes is
/// refused first, so that a client asking for a newer daemon's feature (or making a typo)
/// learns it instead of getting an answer to another question (docs/PROTOCOL.md,
/// "Version rule"). Then each op reads only its own fields, in `Field` order; a field
/// that belongs to another op is refused ("… applies to … only") when the reading passes
/// it, so the first problem in that order is the one reported, whatever the op.
private struct RequestFields {
    /// Every field an op may carry, in the order they are checked.
    enum Field: String, CaseIterable, Comparable {
        case criteria, connectivity, format, since, limit, destination, interface, lease

        /// The ops that take the field.
        var ops: [RequestOp.Name] {
            switch self {
            case .criteria: [.status, .subscribe]
            case .connectivity: [.reportConnectivity]
            case .format: [.metrics]
            case .since, .limit: [.history]
            case .destination: [.subscribe, .route]
            case .interface: [.subscribe, .route, .reportLease]
            case .lease: [.reportLease]
            }
        }

        /// The ops that take the field, for the refusal's message ("status and subscribe").
        var owners: String { listedInWords(ops.map(\.rawValue)) }

        /// Whether an explicit `null` is the same as no field. A null `connectivity` or
        /// `lease` is a report that says nothing, refused as such.
        var nullIsAbsent: Bool { self != .connectivity && self != .lease }

        static func < (left: Field, right: Field) -> Bool { left.rank < right.rank }

        private var rank: Int { Field.allCases.firstIndex(of: self) ?? 0 }
    }

    let members: [String: JSONValue]
    let id: JSONValue?
    /// The last field read: every field up to it was read or refused.
    private var checkedUpTo: Field?

    init(members: [String: JSONValue], id: JSONValue?) {
        self.members = members
        self.id = id
    }

    private func fail(_ message: String) -> RequestError {
        RequestError(code: .badArgument, message: message, id: id)
    }

    /// The value of `field`, after refusing every field before it that the op did not read.
    private mutating func value(_ field: Field) throws(RequestError) -> JSONValue? {
        try refuse(before: field)
        checkedUpTo = field
        guard let value = members[field.rawValue] else { return nil }
        return value.isNull && field.nullIsAbsent ? nil : value
    }

    /// Refuses the first field (by name) that is neither `op`, `id` nor a field of any op,
    /// naming what `op` takes.
    func refuseUnknown(op: RequestOp.Name) throws(RequestError) {
        let unknown = members.keys.filter { $0 != "op" && $0 != "id" && Field(rawValue: $0) == nil }
        guard let first = unknown.min() else { return }
        let own = Field.allCases.filter { $0.ops.contains(op) }.map(\.rawValue)
        let takes = own.isEmpty ? "only id" : listedInWords(["id"] + own)
        throw fail("unknown field \"\(first)\": \(op.rawValue) takes \(takes)")
    }

    /// Refuses every field the op did not read.
    mutating func refuseOthers() throws(RequestError) {
        try refuse(before: nil)
    }

    private func refuse(before end: Field?) throws(RequestError) {
        for field in Field.allCases where checkedUpTo.map({ field > $0 }) ?? true {
            if let end, field >= end { return }
            guard let value = members[field.rawValue], !(value.isNull && field.nullIsAbsent) else { continue }
            throw fail("\"\(field.rawValue)\" applies to \(field.owners) only")
        }
    }

    mutating func criteria() throws(RequestError) -> Criteria {
        guard let value = try value(.criteria) else { return .any }
        guard case .object(let members) = value else { throw fail("\"criteria\" must be an object") }
        func type(_ value: JSONValue, field: String) throws(RequestError) -> InterfaceType {
            guard let name = value.stringValue, let type = InterfaceType(known: name) else {
                throw fail("\(field) must be one of \(InterfaceType.knownNames)")
            }
            return type
        }
        /// A condition: true, or false (or null) for none.
        func flag(_ value: JSONValue, field: String) throws(RequestError) -> Bool {
            if value.isNull { return false }
            guard let flag = value.boolValue else { throw fail("\(field) must be true or false") }
            return flag
        }
        /// A network as criteria name it: a `[Network] Name=` or an ID, by form only
        /// (whether the configuration defines the name is the daemon's check).
        func network(_ value: JSONValue, field: String) throws(RequestError) -> String {
            guard let text = value.stringValue, NetworkID(text) != nil || LinkNetwork.isValidName(text) else {
                throw fail("\(field) must name networks: a [Network] Name= (\(LinkNetwork.validNameDescription)) "
                    + "or an ID (32 hexadecimal digits)")
            }
            return text
        }
        var criteria = Criteria.any
        for (key, member) in members {
            switch key {
            case "requiredInterfaceType":
                if !member.isNull { criteria.requiredInterfaceType = try type(member, field: key) }
            case "prohibitedInterfaceTypes":
                guard let list = member.arrayValue else { throw fail("prohibitedInterfaceTypes must be an array") }
                for element in list { criteria.prohibitedInterfaceTypes.insert(try type(element, field: key)) }
            case "prohibitExpensivePaths":
                criteria.prohibitExpensivePaths = try flag(member, field: key)
            case "prohibitConstrainedPaths":
                criteria.prohibitConstrainedPaths = try flag(member, field: key)
            case "requiredNetwork":
                if !member.isNull { criteria.requiredNetwork = try network(member, field: key) }
            case "prohibitedNetworks":
                guard let list = member.arrayValue else { throw fail("prohibitedNetworks must be an array") }
                for element in list { criteria.prohibitedNetworks.insert(try network(element, field: key)) }
            default:
                throw fail("unknown criteria field \"\(key)\"")
            }
        }
        return criteria
    }

    /// A `route` request: its destination and zone.
    mutating func route() throws(RequestError) -> RequestOp {
        let destination = try destination()
        return .route(destination: destination, interface: try interface(of: destination))
    }

    /// Whether the request carries `field` with a value other than null.
    private func isPresent(_ field: Field) -> Bool {
        members[field.rawValue].map { !$0.isNull } ?? false
    }

    /// A `subscribe`: to a path under `criteria`, or with a `destination` to the route to
    /// that address (never both: a route has no criteria).
    mutating func subscription() throws(RequestError) -> RequestOp.Subscription {
        let criteria = try criteria()
        guard isPresent(.destination) else {
            if isPresent(.interface) {
                throw fail("\"interface\" is the zone of a \"destination\": subscribe to a route with both")
            }
            return .path(criteria)
        }
        if isPresent(.criteria) {
            throw fail("a subscription is to a path (\"criteria\") or to a route (\"destination\"), not both")
        }
        let destination = try destination()
        return .route(destination: destination, interface: try interface(of: destination))
    }

    mutating func connectivity() throws(RequestError) -> Connectivity {
        guard let value = try value(.connectivity) else {
            throw fail("reportConnectivity needs a \"connectivity\" object")
        }
        do {
            return try Connectivity.decode(value, strict: true)
        } catch {
            throw fail(error.message)
        }
    }

    /// A `reportLease`: the link (a name or an index, as a route's zone is written) and
    /// the lease.
    mutating func reportLease() throws(RequestError) -> RequestOp {
        guard let interfaceValue = try value(.interface) else {
            throw fail("reportLease needs \"interface\": the link's name")
        }
        guard let interface = interfaceValue.stringValue, RouteZone.isValid(interface) else {
            throw fail("interface must be an interface name or index as a string")
        }
        guard let leaseValue = try value(.lease), !leaseValue.isNull else {
            throw fail("reportLease needs a \"lease\" object")
        }
        do {
            return .reportLease(interface: interface, try LeaseReport.decode(leaseValue))
        } catch {
            throw fail(error.message)
        }
    }

    mutating func format() throws(RequestError) -> Exposition.Format? {
        guard let value = try value(.format) else { return nil }
        guard let name = value.stringValue, let known = Exposition.Format(rawValue: name) else {
            throw fail("\"format\" must be \(Exposition.Format.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        return known
    }

    mutating func since() throws(RequestError) -> Duration? {
        switch try value(.since) {
        case nil: return nil
        case .integer(let whole): return .seconds(whole)
        case .double(let number):
            // A double past about 292,000 years has no microsecond count; refused, never trapped on.
            if let since = Duration.seconds(fractional: number) { return since }
        default: break
        }
        throw fail("\"since\" must be a time in seconds since the epoch (a number)")
    }

    mutating func limit() throws(RequestError) -> Int? {
        guard let value = try value(.limit) else { return nil }
        guard let number = value.integerValue, number >= 0 else {
            throw fail("\"limit\" must be an integer of 0 or more")
        }
        return Int(clamping: number)
    }

    /// An IPv4 or IPv6 address literal, never a name: the daemon resolves nothing (a
    /// resolver may block, and a name may have many addresses).
    mutating func destination() throws(RequestError) -> IPAddress {
        guard let value = try value(.destination) else {
            throw fail("route needs a \"destination\": an IP address")
        }
        guard let text = value.stringValue else {
            throw fail("destination must be an IP address as a string, got \(value.typeName)")
        }
        if text.contains("%") {
            throw fail("destination must be an IP address without a zone (\"%eth0\"): send the zone as \"interface\"")
        }
        guard let address = IPAddress(text) else {
            throw fail("destination must be an IP address; resolve names first")
        }
        return address
    }

    /// The zone of a link-scoped IPv6 destination: an interface name or index, as a
    /// string (RouteZone.swift says where it applies).
    mutating func interface(of destination: IPAddress) throws(RequestError) -> String? {
        guard let value = try value(.interface) else { return nil }
        guard let zone = value.stringValue, RouteZone.isValid(zone) else {
            throw fail("interface must be an interface name or index as a string (the zone of \"fe80::1%eth0\")")
        }
        if let refusal = RouteZone.refusal(zoning: destination) { throw fail(refusal) }
        return zone
    }
}
