// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The wire form of the `route` reply (docs/PROTOCOL.md, "`route`").
extension RouteReport {
    /// Writes the reply's members after `type`, up to `generation`; the caller adds `id`.
    func write(to writer: inout JSONWriter, generation: Generation) {
        writer.member("destination", destination)
        writer.member("status", status.rawValue)
        writer.member("unsatisfiedReason", unsatisfiedReason?.rawValue)
        writer.member("reasonInterface", reasonInterface)
        writer.member("reason", reason)
        if let interface {
            interface.write(to: &writer, key: "interface")
        } else {
            writer.member("interface", nil as String?)
        }
        writer.member("source", source)
        writer.member("gateway", gateway)
        writer.member("table", table)
        writer.member("isExpensive", isExpensive)
        writer.member("isConstrained", isConstrained)
        writer.member("generation", generation.rawValue)
    }

    /// Reads a `route` line's members. Unknown members are ignored (additive changes).
    static func decode(_ value: JSONValue)
        throws(MessageDecodingError) -> (report: RouteReport, generation: Generation) {
        func fail(_ what: String) -> MessageDecodingError { MessageDecodingError(description: "route line: \(what)") }
        func address(_ key: String) throws(MessageDecodingError) -> IPAddress? {
            guard let member = value[key], !member.isNull else { return nil }
            guard let text = member.stringValue, let address = IPAddress(text) else { throw fail("invalid \"\(key)\"") }
            return address
        }
        guard let destination = try address("destination") else { throw fail("missing \"destination\"") }
        guard let statusName = value["status"]?.stringValue, let generation = value["generation"]?.integerValue else {
            throw fail("missing or invalid status or generation")
        }
        // Open values (docs/PROTOCOL.md, "Version rule"): a newer pathd's status or reason
        // keeps its word; an unrecognized status is not satisfied.
        var report = RouteReport(destination: destination, status: PathStatus(rawValue: statusName))
        report.unsatisfiedReason = value["unsatisfiedReason"]?.stringValue.map(UnsatisfiedReason.init(rawValue:))
        report.reasonInterface = value["reasonInterface"]?.stringValue
        if let member = value["interface"], !member.isNull {
            guard let interface = Interface.decode(member) else { throw fail("invalid \"interface\"") }
            report.interface = interface
        }
        report.source = try address("source")
        report.gateway = try address("gateway")
        if let member = value["table"], !member.isNull {
            guard let number = member.integerValue, let table = UInt32(exactly: number) else {
                throw fail("invalid \"table\"")
            }
            report.table = table
        }
        report.isExpensive = value["isExpensive"]?.boolValue ?? false
        report.isConstrained = value["isConstrained"]?.boolValue ?? false
        return (report, Generation(rawValue: UInt64(clamping: generation)))
    }
}

/// `{"name","index","type","tunnel","network"}`: an interface as a path's `interfaces`
/// and a route's `interface` carry it.
extension Interface {
    func write(to writer: inout JSONWriter, key: String? = nil) {
        writer.beginObject(key)
        writer.member("name", name)
        writer.member("index", index.rawValue)
        writer.member("type", type.rawValue)
        writer.member("tunnel", isTunnel)
        LinkNetwork.write(network, to: &writer)
        // Added within version 1: present only when the network announced one.
        if let captivePortal { writer.member("captivePortal", captivePortal) }
        writer.endObject()
    }

    static func decode(_ value: JSONValue) -> Interface? {
        guard let name = value["name"]?.stringValue, let index = value["index"]?.integerValue,
              let index32 = Int32(exactly: index), let typeName = value["type"]?.stringValue else { return nil }
        return Interface(name: name, index: InterfaceIndex(rawValue: index32), type: InterfaceType(rawValue: typeName),
                         isTunnel: value["tunnel"]?.boolValue ?? false, network: LinkNetwork.decode(value["network"]),
                         captivePortal: value["captivePortal"]?.stringValue)
    }
}
