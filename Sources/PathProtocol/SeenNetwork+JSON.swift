// SPDX-License-Identifier: Apache-2.0
import PathModel

/// A seen network as a JSON object: an element of the `networks` reply and, the same
/// bytes, one line of pathd's `networks.jsonl` (docs/PROTOCOL.md, `networks`).
extension SeenNetwork {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", id.description)
        writer.member("name", name)
        writer.member("current", isCurrent)
        writer.beginArray("interfaces")
        for interface in interfaces { writer.element(interface) }
        writer.endArray()
        writer.beginArray("domains")
        for domain in domains { writer.element(domain) }
        writer.endArray()
        writer.member("firstSeen", seconds: firstSeen)
        writer.member("lastSeen", seconds: lastSeen)
        facts.write(to: &writer, key: "facts")
        writer.endObject()
    }

    /// The network as one line of the file.
    public func encodedLine() -> [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.finishLine()
    }

    /// Reads one. Unknown members are ignored (a newer pathd may add some); an anchor
    /// this version does not know is kept as `unrecognized`.
    public static func decode(_ value: JSONValue) throws(MessageDecodingError) -> SeenNetwork {
        func fail(_ what: String) -> MessageDecodingError { MessageDecodingError(description: "network: \(what)") }
        func strings(_ key: String) throws(MessageDecodingError) -> [String] {
            var list: [String] = []
            for element in value[key]?.arrayValue ?? [] {
                guard let text = element.stringValue else { throw fail("\"\(key)\" must hold strings") }
                list.append(text)
            }
            return list
        }
        func seconds(_ key: String) throws(MessageDecodingError) -> Duration {
            switch value[key] {
            case .integer(let whole)?: return .seconds(whole)
            case .double(let number)?:
                if let duration = Duration.seconds(fractional: number), Timestamp.wallRange.contains(duration) {
                    return duration
                }
            default: break
            }
            throw fail("\"\(key)\" must be a time in seconds since the epoch")
        }
        guard let text = value["id"]?.stringValue, let id = NetworkID(text) else {
            throw fail("\"id\" must be 32 hexadecimal digits")
        }
        guard let factsValue = value["facts"] else { throw fail("no \"facts\"") }
        return SeenNetwork(id: id, name: value["name"]?.stringValue, facts: try NetworkFacts.decode(factsValue),
                           interfaces: try strings("interfaces"), domains: try strings("domains"),
                           firstSeen: try seconds("firstSeen"), lastSeen: try seconds("lastSeen"),
                           isCurrent: value["current"]?.boolValue ?? false)
    }

    /// Parses one line of the file (without its newline).
    public static func decode<Bytes: Collection>(line: Bytes) throws(MessageDecodingError) -> SeenNetwork
        where Bytes.Element == UInt8 {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw MessageDecodingError(description: "network: not JSON: \(error)")
        }
        return try decode(value)
    }
}

/// The raw facts of a network's ID as a JSON object (`facts` of a seen network): for
/// privileged peers only.
extension NetworkFacts {
    func write(to writer: inout JSONWriter, key: String) {
        writer.beginObject(key)
        writer.member("anchor", anchor.rawValue)
        writer.beginArray("gatewayMACs")
        for mac in gatewayMACs { writer.element(mac.description) }
        writer.endArray()
        writer.beginArray("gateways")
        for gateway in gateways { writer.element(gateway.description) }
        writer.endArray()
        writer.member("prefix", prefix?.description)
        writer.member("linkKind", linkKind)
        writer.endObject()
    }

    static func decode(_ value: JSONValue) throws(MessageDecodingError) -> NetworkFacts {
        func fail(_ what: String) -> MessageDecodingError {
            MessageDecodingError(description: "network facts: \(what)")
        }
        guard let anchor = value["anchor"]?.stringValue else { throw fail("no \"anchor\"") }
        var macs: [LinkLayerAddress] = []
        for element in value["gatewayMACs"]?.arrayValue ?? [] {
            guard let text = element.stringValue, let mac = LinkLayerAddress(text) else {
                throw fail("\"gatewayMACs\" must hold MAC addresses")
            }
            macs.append(mac)
        }
        var gateways: [IPAddress] = []
        for element in value["gateways"]?.arrayValue ?? [] {
            guard let text = element.stringValue, let address = IPAddress(text) else {
                throw fail("\"gateways\" must hold IP addresses")
            }
            gateways.append(address)
        }
        var prefix: IPPrefix?
        if let text = value["prefix"]?.stringValue {
            guard let parsed = IPPrefix(text) else { throw fail("\"prefix\" must be a prefix") }
            prefix = parsed
        }
        return NetworkFacts(anchor: LinkNetwork.Anchor(rawValue: anchor), gatewayMACs: macs, gateways: gateways,
                            prefix: prefix, linkKind: value["linkKind"]?.stringValue)
    }
}
