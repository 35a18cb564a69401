// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The wire form of `InterfaceReport` (the `interfaces` message, docs/PROTOCOL.md):
/// names for the kernel's flag bits and scopes, one object per link.
extension InterfaceReport {
    /// The link flags pathd reports, by their wire names, in this order.
    public static let linkFlagNames: [(LinkFlags, String)] = [
        (.up, "up"), (.running, "running"), (.lowerUp, "lowerUp"), (.dormant, "dormant"), (.loopback, "loopback"),
    ]

    /// The address flags pathd reports, by their wire names, in this order.
    public static let addressFlagNames: [(AddressFlags, String)] = [
        (.tentative, "tentative"), (.dadFailed, "dadFailed"), (.deprecated, "deprecated"),
        (.optimistic, "optimistic"), (.noDAD, "noDAD"), (.permanent, "permanent"), (.secondary, "secondary"),
    ]

    /// Scope names as `ip address` prints them (`RT_SCOPE_*`, `<linux/rtnetlink.h>`);
    /// any other scope is its number.
    static let scopeNames: [(UInt8, String)] = [
        (0, "global"), (200, "site"), (253, "link"), (254, "host"), (255, "nowhere"),
    ]

    static func scopeName(_ scope: AddressScope) -> String {
        scopeNames.first { $0.0 == scope.rawValue }?.1 ?? String(scope.rawValue)
    }

    /// Writes the report as one element of the `interfaces` array.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("name", name)
        writer.member("index", index.rawValue)
        writer.member("type", type.rawValue)
        writer.member("kind", kind)
        writer.member("operstate", operState.name)
        writer.beginArray("flags")
        for (flag, name) in Self.linkFlagNames where flags.contains(flag) { writer.element(name) }
        writer.endArray()
        writer.beginArray("addresses")
        for address in addresses {
            writer.beginObject()
            writer.member("address", address.address)
            writer.member("prefixLength", address.prefixLength)
            writer.member("family", address.family.rawValue)
            writer.beginArray("flags")
            for (flag, name) in Self.addressFlagNames where address.flags.contains(flag) { writer.element(name) }
            writer.endArray()
            writer.member("scope", Self.scopeName(address.scope))
            writer.endObject()
        }
        writer.endArray()
        writer.member("isExpensive", isExpensive)
        writer.member("isConstrained", isConstrained)
        writer.member("isExpensiveSetBy", isExpensiveSetBy.rawValue)
        writer.member("isConstrainedSetBy", isConstrainedSetBy.rawValue)
        LinkNetwork.write(network, to: &writer)
        // Only in a privileged peer's reply (RequestHandler leaves it out of the others').
        if let networkFacts { networkFacts.write(to: &writer, key: "networkFacts") }
        writer.member("usable", isUsable)
        writer.member("why", unusableReason?.explanation)
        writer.member("unusableReason", unusableReason?.rawValue)
        connectivity.write(to: &writer, key: "connectivity")
        writer.endObject()
    }

    /// Reads one element of the `interfaces` array. Flag names this client does not
    /// know are skipped (new flags are an additive change); a type or connectivity state
    /// it does not know is `unrecognized`, an operstate `unknown` (IF_OPER_UNKNOWN: the
    /// kernel's own word for a state it cannot tell).
    static func decode(_ value: JSONValue) throws(MessageDecodingError) -> InterfaceReport {
        func fail(_ what: String) -> MessageDecodingError {
            MessageDecodingError(description: "interfaces line: \(what)")
        }
        guard let name = value["name"]?.stringValue, let indexNumber = value["index"]?.integerValue,
              let rawIndex = Int32(exactly: indexNumber), let typeName = value["type"]?.stringValue else {
            throw fail("invalid name, index or type")
        }
        let type = InterfaceType(rawValue: typeName)
        let index = InterfaceIndex(rawValue: rawIndex)
        guard let stateName = value["operstate"]?.stringValue else { throw fail("no operstate of \(name)") }
        let operState = OperState.allCases.first { $0.name == stateName } ?? .unknown
        var flags = LinkFlags()
        for element in value["flags"]?.arrayValue ?? [] {
            if let flag = linkFlagNames.first(where: { $0.1 == element.stringValue })?.0 { flags.insert(flag) }
        }
        var addresses: [InterfaceAddress] = []
        for entry in value["addresses"]?.arrayValue ?? [] {
            guard let text = entry["address"]?.stringValue, let address = IPAddress(text),
                  let prefix = entry["prefixLength"]?.integerValue, let prefixLength = UInt8(exactly: prefix),
                  let scopeText = entry["scope"]?.stringValue,
                  let scope = scopeNames.first(where: { $0.1 == scopeText })?.0 ?? UInt8(scopeText) else {
                throw fail("invalid address entry of \(name)")
            }
            var addressFlags = AddressFlags()
            for element in entry["flags"]?.arrayValue ?? [] {
                if let flag = addressFlagNames.first(where: { $0.1 == element.stringValue })?.0 {
                    addressFlags.insert(flag)
                }
            }
            addresses.append(InterfaceAddress(interface: index, address: address, prefixLength: prefixLength,
                                              flags: addressFlags, scope: AddressScope(rawValue: scope)))
        }
        let usable = value["usable"]?.boolValue ?? false
        // A daemon always names the reason of an unusable link (the code since protocol
        // 1's `unusableReason` field, the words before); "unknown" only guards a line
        // that lacks both.
        let reason = usable ? nil : UnusableReason(rawValue: value["unusableReason"]?.stringValue
            ?? value["why"]?.stringValue.flatMap { words in
                UnusableReason.allCases.first { $0.explanation == words }?.rawValue
            }
            ?? value["why"]?.stringValue ?? "unknown")
        var networkFacts: NetworkFacts?
        if let member = value["networkFacts"], !member.isNull {
            do {
                networkFacts = try NetworkFacts.decode(member)
            } catch {
                throw fail("\(name): \(error.description)")
            }
        }
        var connectivity = Connectivity.unknown
        if let member = value["connectivity"] {
            do {
                connectivity = try Connectivity.decode(member, strict: false)
            } catch {
                throw fail("\(name): \(error.message)")
            }
        }
        return InterfaceReport(name: name, index: index, type: type, kind: value["kind"]?.stringValue,
                               operState: operState, flags: flags, addresses: addresses,
                               isExpensive: value["isExpensive"]?.boolValue ?? false,
                               isConstrained: value["isConstrained"]?.boolValue ?? false,
                               isExpensiveSetBy: CostSource(rawValue: value["isExpensiveSetBy"]?.stringValue ?? "type"),
                               isConstrainedSetBy: CostSource(rawValue: value["isConstrainedSetBy"]?.stringValue
                                   ?? "type"),
                               network: LinkNetwork.decode(value["network"]),
                               networkFacts: networkFacts, unusableReason: reason,
                               connectivity: connectivity)
    }
}
