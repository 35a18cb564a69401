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
        writer.member("id", network.id)
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
