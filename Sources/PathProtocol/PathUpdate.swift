// SPDX-License-Identifier: Apache-2.0
import PathModel

/// A path as published: the path of one criteria set, the generation of the monitor
/// instance that produced it, and its place in that criteria's sequence.
public struct PathUpdate: Hashable, Sendable {
    public var generation: Generation
    /// Strictly increasing per subscription; a gap means lines were superseded.
    public var sequence: UInt64
    public var path: Path
    /// The connectivity check's verdict on the path's first interface (docs/PROTOCOL.md): beside
    /// the path, never part of it.
    public var connectivity: Connectivity

    public init(generation: Generation, sequence: UInt64, path: Path, connectivity: Connectivity = .unknown) {
        self.generation = generation
        self.sequence = sequence
        self.path = path
        self.connectivity = connectivity
    }
}

/// One line of a route subscription (`subscribe` with a `destination`): the route to one
/// address as the `route` request answers it, with the generation it was answered in and
/// its place in that destination's sequence, as a path line has them.
public struct RouteUpdate: Hashable, Sendable {
    public var generation: Generation
    /// Strictly increasing per watched destination, so per subscription; a gap means
    /// lines were superseded.
    public var sequence: UInt64
    public var report: RouteReport

    public init(generation: Generation, sequence: UInt64, report: RouteReport) {
        self.generation = generation
        self.sequence = sequence
        self.report = report
    }
}

/// A subscription's line (a path, or a watched route) encoded once and sent to every
/// subscriber of the same criteria or destination.
///
/// The body stops before the closing brace so that a subscription's `id` can be
/// appended without re-encoding; subscribers without an id share `line` as it is.
public struct EncodedPathLine: Sendable {
    private let body: [UInt8]
    /// The complete line for replies without an id.
    public let line: [UInt8]

    public init(_ update: PathUpdate) {
        var writer = JSONWriter()
        writer.beginMessage(.path)
        update.write(to: &writer)
        self.init(body: writer.bytes)
    }

    /// A `route` line with its `sequence`: the `route` reply's members, then `sequence`.
    public init(_ update: RouteUpdate) {
        var writer = JSONWriter()
        writer.beginMessage(.route)
        update.report.write(to: &writer, generation: update.generation)
        writer.member("sequence", update.sequence)
        self.init(body: writer.bytes)
    }

    private init(body: [UInt8]) {
        self.body = body
        line = body + [UInt8(ascii: "}"), UInt8(ascii: "\n")]
    }

    /// The line for a reply or subscription tagged with `id`.
    public func line(id: JSONValue?) -> [UInt8] {
        line(idMember: Self.idMember(id))
    }

    /// The line with `idMember` (from `idMember(_:)`) spliced before the closing brace;
    /// the shared `line` itself when it is empty.
    public func line(idMember: [UInt8]) -> [UInt8] {
        idMember.isEmpty ? line : body + idMember + [UInt8(ascii: "}"), UInt8(ascii: "\n")]
    }

    /// `,"id":X` for `id`, or nothing without one: encoded once per subscription, not
    /// once per change.
    public static func idMember(_ id: JSONValue?) -> [UInt8] {
        guard let id else { return [] }
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("id", id)
        // `{"id":X` → `,"id":X`
        return [UInt8(ascii: ",")] + writer.bytes.dropFirst()
    }
}

/// The members of a path line (docs/PROTOCOL.md, "`path`"), in the order they are
/// written: the one place their names are, read by the encoder and the decoder below.
private enum Member: String {
    case generation, sequence, status, unsatisfiedReason, reasonInterface, reason, interfaces
    case network, isExpensive, isConstrained, isExpensiveSetBy, isConstrainedSetBy
    case supportsIPv4, supportsIPv6, supportsDNS, gateways, connectivity
}

extension PathUpdate {
    /// Writes a path line's members after `type`; the caller adds `id`.
    func write(to writer: inout JSONWriter) {
        writer.member(Member.generation.rawValue, generation.rawValue)
        writer.member(Member.sequence.rawValue, sequence)
        writer.member(Member.status.rawValue, path.status.rawValue)
        writer.member(Member.unsatisfiedReason.rawValue, path.unsatisfiedReason?.rawValue)
        writer.member(Member.reasonInterface.rawValue, path.reasonInterface)
        writer.member(Member.reason.rawValue, path.status == .unsatisfied ? path.summary : nil)
        writer.beginArray(Member.interfaces.rawValue)
        for interface in path.availableInterfaces { interface.write(to: &writer) }
        writer.endArray()
        LinkNetwork.write(path.network, to: &writer, key: Member.network.rawValue)
        writer.member(Member.isExpensive.rawValue, path.isExpensive)
        writer.member(Member.isConstrained.rawValue, path.isConstrained)
        writer.member(Member.isExpensiveSetBy.rawValue, path.isExpensiveSetBy?.rawValue)
        writer.member(Member.isConstrainedSetBy.rawValue, path.isConstrainedSetBy?.rawValue)
        writer.member(Member.supportsIPv4.rawValue, path.supportsIPv4)
        writer.member(Member.supportsIPv6.rawValue, path.supportsIPv6)
        writer.member(Member.supportsDNS.rawValue, path.supportsDNS)
        writer.beginArray(Member.gateways.rawValue)
        for gateway in path.gateways { writer.element(gateway) }
        writer.endArray()
        connectivity.write(to: &writer, key: Member.connectivity.rawValue)
    }

    /// Reads a path line's members. Unknown members are ignored, an unknown value keeps
    /// its name (docs/PROTOCOL.md, "Version rule"); `reason` is derived, not read.
    static func decode(_ value: JSONValue) throws(MessageDecodingError) -> PathUpdate {
        func fail(_ what: String) -> MessageDecodingError { MessageDecodingError(description: "path line: \(what)") }
        func flag(_ member: Member) -> Bool { value[member.rawValue]?.boolValue ?? false }
        guard let generation = value[Member.generation.rawValue]?.integerValue,
              let sequence = value[Member.sequence.rawValue]?.integerValue,
              let statusName = value[Member.status.rawValue]?.stringValue else {
            throw fail("missing or invalid generation, sequence or status")
        }
        var path = Path(status: PathStatus(rawValue: statusName))
        path.unsatisfiedReason = value[Member.unsatisfiedReason.rawValue]?.stringValue
            .map(UnsatisfiedReason.init(rawValue:))
        path.reasonInterface = value[Member.reasonInterface.rawValue]?.stringValue
        for element in value[Member.interfaces.rawValue]?.arrayValue ?? [] {
            guard let interface = Interface.decode(element) else { throw fail("invalid interface entry") }
            path.availableInterfaces.append(interface)
        }
        path.isExpensive = flag(.isExpensive)
        path.isConstrained = flag(.isConstrained)
        path.isExpensiveSetBy = value[Member.isExpensiveSetBy.rawValue]?.stringValue.map(CostSource.init(rawValue:))
        path.isConstrainedSetBy = value[Member.isConstrainedSetBy.rawValue]?.stringValue.map(CostSource.init(rawValue:))
        path.supportsIPv4 = flag(.supportsIPv4)
        path.supportsIPv6 = flag(.supportsIPv6)
        path.supportsDNS = flag(.supportsDNS)
        for gateway in value[Member.gateways.rawValue]?.arrayValue ?? [] {
            guard let text = gateway.stringValue, let address = IPAddress(text) else { throw fail("invalid gateway") }
            path.gateways.append(address)
        }
        var connectivity = Connectivity.unknown
        if let value = value[Member.connectivity.rawValue] {
            do {
                connectivity = try Connectivity.decode(value, strict: false)
            } catch {
                throw fail(error.message)
            }
        }
        return PathUpdate(generation: Generation(rawValue: UInt64(clamping: generation)),
                          sequence: UInt64(clamping: sequence), path: path, connectivity: connectivity)
    }
}
