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
        writer.member("generation", update.generation.rawValue)
        writer.member("sequence", update.sequence)
        let path = update.path
        writer.member("status", path.status.rawValue)
        writer.member("unsatisfiedReason", path.unsatisfiedReason?.rawValue)
        writer.member("reasonInterface", path.reasonInterface)
        writer.member("reason", path.status == .unsatisfied ? path.summary : nil)
        writer.beginArray("interfaces")
        for interface in path.availableInterfaces { interface.write(to: &writer) }
        writer.endArray()
        LinkNetwork.write(path.network, to: &writer)
        writer.member("isExpensive", path.isExpensive)
        writer.member("isConstrained", path.isConstrained)
        writer.member("isExpensiveSetBy", path.isExpensiveSetBy?.rawValue)
        writer.member("isConstrainedSetBy", path.isConstrainedSetBy?.rawValue)
        writer.member("supportsIPv4", path.supportsIPv4)
        writer.member("supportsIPv6", path.supportsIPv6)
        writer.member("supportsDNS", path.supportsDNS)
        writer.beginArray("gateways")
        for gateway in path.gateways { writer.element(gateway.description) }
        writer.endArray()
        update.connectivity.write(to: &writer, key: "connectivity")
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
