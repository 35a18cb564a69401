// SPDX-License-Identifier: Apache-2.0
import PathModel

/// A seen network as a JSON object: an element of the `networks` reply and, the same
/// bytes, one line of pathd's `networks.jsonl` (docs/PROTOCOL.md, `networks`).
extension SeenNetwork {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", id)
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
        facts.write(to: &writer, key: "facts", withDeprecatedLinkKind: true)
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
