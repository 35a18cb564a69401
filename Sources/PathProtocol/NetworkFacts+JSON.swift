// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The facts a network's ID hashes as a JSON object, for privileged peers only: the
/// `networkFacts` of an `interfaces` reply's interface and the `facts` of a seen network
/// (the `networks` reply, and the same bytes in `networks.jsonl`). One key set,
/// `{"anchor","gatewayMACs","gateways","prefix","kind"}` (docs/PROTOCOL.md); a seen
/// network also carries the link kind as `linkKind`, the key its first version wrote,
/// kept as a deprecated alias.
extension NetworkFacts {
    /// The members, each named once.
    enum Member {
        static let anchor = "anchor"
        static let gatewayMACs = "gatewayMACs"
        static let gateways = "gateways"
        static let prefix = "prefix"
        static let kind = "kind"
        /// `kind`'s first name in a seen network's `facts`: still written there, and read
        /// where `kind` is absent (a `networks.jsonl` from a pathd before the rename).
        static let deprecatedLinkKind = "linkKind"
    }

    func write(to writer: inout JSONWriter, key: String, withDeprecatedLinkKind: Bool = false) {
        writer.beginObject(key)
        writer.member(Member.anchor, anchor.rawValue)
        writer.beginArray(Member.gatewayMACs)
        for mac in gatewayMACs { writer.element(mac.description) }
        writer.endArray()
        writer.beginArray(Member.gateways)
        for gateway in gateways { writer.element(gateway) }
        writer.endArray()
        writer.member(Member.prefix, prefix?.description)
        writer.member(Member.kind, linkKind)
        if withDeprecatedLinkKind { writer.member(Member.deprecatedLinkKind, linkKind) }
        writer.endObject()
    }

    /// Reads a facts object. An anchor this version does not know is kept as
    /// `unrecognized`; unknown members are ignored; a MAC, address or prefix that does not
    /// parse is an error.
    static func decode(_ value: JSONValue) throws(MessageDecodingError) -> NetworkFacts {
        func fail(_ what: String) -> MessageDecodingError {
            MessageDecodingError(description: "network facts: \(what)")
        }
        func list<Element>(_ key: String, of what: String,
                           _ parse: (String) -> Element?) throws(MessageDecodingError) -> [Element] {
            var elements: [Element] = []
            for element in value[key]?.arrayValue ?? [] {
                guard let text = element.stringValue, let parsed = parse(text) else {
                    throw fail("\"\(key)\" must hold \(what)")
                }
                elements.append(parsed)
            }
            return elements
        }
        guard let anchor = value[Member.anchor]?.stringValue else { throw fail("no \"\(Member.anchor)\"") }
        var prefix: IPPrefix?
        if let text = value[Member.prefix]?.stringValue {
            guard let parsed = IPPrefix(text) else { throw fail("\"\(Member.prefix)\" must be a prefix") }
            prefix = parsed
        }
        return NetworkFacts(anchor: LinkNetwork.Anchor(rawValue: anchor),
                            gatewayMACs: try list(Member.gatewayMACs, of: "MAC addresses", LinkLayerAddress.init),
                            gateways: try list(Member.gateways, of: "IP addresses", IPAddress.init),
                            prefix: prefix,
                            linkKind: value[Member.kind]?.stringValue
                                ?? value[Member.deprecatedLinkKind]?.stringValue)
    }
}
