// SPDX-License-Identifier: Apache-2.0
import PathModel

/// One history entry as a JSON object: an element of the `history` reply's `entries`
/// and, the same bytes, one line of pathd's history file (docs/PROTOCOL.md, `history`).
extension HistoryEntry {
    /// Writes the entry as an object (an array element, or the top level of a file line).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("event", eventName)
        writer.member("wallTime", seconds: time.wall)
        writer.member("monotonicTime", seconds: time.monotonic)
        switch event {
        case .change(let change):
            change.write(to: &writer)
        case .route(let host, let change):
            writer.member("host", host)
            change.write(to: &writer)
        case .started, .stopped, .unrecognized:
            break
        }
        writer.endObject()
    }

    /// The entry as one line of the history file.
    public func encodedLine() -> [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.finishLine()
    }
}

extension PathChange {
    /// The members of a `change` (and a `route`) entry after its times.
    fileprivate func write(to writer: inout JSONWriter) {
        writer.member("status", status.rawValue)
        writer.member("unsatisfiedReason", unsatisfiedReason?.rawValue)
        writer.member("reasonInterface", reasonInterface)
        writer.member("reason", explanation)
        writer.beginArray("interfaces")
        for name in interfaces { writer.element(name) }
        writer.endArray()
        writer.member("generation", generation.rawValue)
        writer.member("sequence", sequence)
        // Added within version 1: present only when the path was on an identified network.
        if let network {
            writer.beginObject("network")
            writer.member("id", network.id)
            writer.member("name", network.name)
            writer.endObject()
        }
    }

    /// Reads the members of a `change` (and a `route`) entry; `recordedExplanation` is its
    /// `reason`, kept as written for a route (a path's is derived from its reason).
    fileprivate static func decode(_ value: JSONValue, keepingReason: Bool) throws(MessageDecodingError) -> PathChange {
        func fail(_ what: String) -> MessageDecodingError {
            MessageDecodingError(description: "history entry: \(what)")
        }
        guard let name = value["status"]?.stringValue else { throw fail("missing status") }
        let status = PathStatus(rawValue: name)
        let reason = value["unsatisfiedReason"]?.stringValue.map(UnsatisfiedReason.init(rawValue:))
        var interfaces: [String] = []
        for element in value["interfaces"]?.arrayValue ?? [] {
            guard let name = element.stringValue else { throw fail("interfaces must be names") }
            interfaces.append(name)
        }
        guard let generation = value["generation"]?.integerValue, generation >= 0,
              let sequence = value["sequence"]?.integerValue, sequence >= 0 else {
            throw fail("missing generation or sequence")
        }
        var change = PathChange(status: status, unsatisfiedReason: reason,
                                reasonInterface: value["reasonInterface"]?.stringValue, interfaces: interfaces,
                                generation: Generation(rawValue: UInt64(generation)), sequence: UInt64(sequence))
        if keepingReason { change.recordedExplanation = value["reason"]?.stringValue }
        if let network = value["network"], !network.isNull {
            guard let text = network["id"]?.stringValue, let id = NetworkID(text) else {
                throw fail("\"network\" must have an \"id\" of 32 hexadecimal digits")
            }
            change.network = PathChange.Network(id: id, name: network["name"]?.stringValue)
        }
        return change
    }
}

extension HistoryEntry {

    /// Reads one entry. Unknown members are ignored; an event, status or reason this
    /// version does not know (written by a newer pathd) is kept as `unrecognized`.
    public static func decode(_ value: JSONValue) throws(MessageDecodingError) -> HistoryEntry {
        func fail(_ what: String) -> MessageDecodingError {
            MessageDecodingError(description: "history entry: \(what)")
        }
        func seconds(_ key: String, within range: Range<Duration>, _ expected: String) throws(MessageDecodingError)
            -> Duration {
            // Range-checked here, once: a time that is not plausible would overflow or
            // trap later, in a duration, a date or the encoder (docs/PROTOCOL.md, `history`).
            let duration: Duration?
            let text: String
            switch value[key] {
            case .integer(let whole): (duration, text) = (.seconds(whole), String(whole))
            case .double(let number): (duration, text) = (.seconds(fractional: number), String(number))
            default: throw fail("no number \"\(key)\"")
            }
            guard let duration, range.contains(duration) else { throw fail("\"\(key)\" \(text) is not \(expected)") }
            return duration
        }
        let time = Timestamp(
            wall: try seconds("wallTime", within: Timestamp.wallRange, "a time from 1970 to 9999"),
            monotonic: try seconds("monotonicTime", within: Timestamp.monotonicRange, "a time since boot (≥ 0)"))
        switch value["event"]?.stringValue {
        case "started":
            return HistoryEntry(time: time, event: .started)
        case "stopped":
            return HistoryEntry(time: time, event: .stopped)
        case "change":
            return HistoryEntry(time: time, event: .change(try PathChange.decode(value, keepingReason: false)))
        case "route":
            guard let host = value["host"]?.stringValue else { throw fail("no string \"host\"") }
            let change = try PathChange.decode(value, keepingReason: true)
            return HistoryEntry(time: time, event: .route(host: host, change))
        case let other?:
            return HistoryEntry(time: time, event: .unrecognized(other))
        case nil:
            throw fail("no string \"event\"")
        }
    }

    /// Parses one line of the history file (without its newline).
    public static func decode<Bytes: Collection>(line: Bytes) throws(MessageDecodingError) -> HistoryEntry
        where Bytes.Element == UInt8 {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw MessageDecodingError(description: "history entry: not JSON: \(error)")
        }
        return try decode(value)
    }
}
