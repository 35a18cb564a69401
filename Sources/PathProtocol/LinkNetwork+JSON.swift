// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The wire form of a link's network (docs/PROTOCOL.md, "Networks"):
/// `{"state","id","name","anchor"}`, every member present (null where there is none),
/// or null for a link on no network.
extension LinkNetwork {
    static func write(_ network: LinkNetwork?, to writer: inout JSONWriter, key: String = "network") {
        guard let network else {
            writer.member(key, nil as String?)
            return
        }
        writer.beginObject(key)
        writer.member("state", network.state.rawValue)
        writer.member("id", network.id?.description)
        writer.member("name", network.name)
        writer.member("anchor", network.anchor?.rawValue)
        writer.endObject()
    }

    /// Reads a `network` member; nil for null, a missing member (an older daemon) or an
    /// object without a `state`. A state or anchor this version does not know is kept as
    /// `unrecognized`; an ID that is not 32 hexadecimal digits is left out.
    static func decode(_ value: JSONValue?) -> LinkNetwork? {
        guard let value, let state = value["state"]?.stringValue else { return nil }
        return LinkNetwork(state: State(rawValue: state), id: value["id"]?.stringValue.flatMap(NetworkID.init),
                           name: value["name"]?.stringValue,
                           anchor: value["anchor"]?.stringValue.map(Anchor.init(rawValue:)))
    }
}

/// The facts a network's ID hashes, in a privileged peer's `interfaces` reply only:
/// `{"anchor","gatewayMACs","gateways","prefix","kind"}`.
extension NetworkFacts {
    func write(to writer: inout JSONWriter) {
        writer.beginObject("networkFacts")
        writer.member("anchor", anchor.rawValue)
        writer.beginArray("gatewayMACs")
        for mac in gatewayMACs { writer.element(mac.description) }
        writer.endArray()
        writer.beginArray("gateways")
        for gateway in gateways { writer.element(gateway.description) }
        writer.endArray()
        writer.member("prefix", prefix?.description)
        writer.member("kind", linkKind)
        writer.endObject()
    }

    static func decode(_ value: JSONValue?) -> NetworkFacts? {
        guard let value, let anchor = value["anchor"]?.stringValue else { return nil }
        return NetworkFacts(anchor: LinkNetwork.Anchor(rawValue: anchor),
                            gatewayMACs: (value["gatewayMACs"]?.arrayValue ?? []).compactMap {
                                $0.stringValue.flatMap(LinkLayerAddress.init)
                            },
                            gateways: (value["gateways"]?.arrayValue ?? []).compactMap {
                                $0.stringValue.flatMap(IPAddress.init)
                            },
                            prefix: value["prefix"]?.stringValue.flatMap(IPPrefix.init),
                            linkKind: value["kind"]?.stringValue)
    }
}
