// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The wire form of a connectivity result (docs/PROTOCOL.md, "connectivity"): in path
/// lines, in each link of the `interfaces` reply, and in a `reportConnectivity` request.
/// `unknown` is `{"state":"unknown"}`; every other state carries its evidence, every
/// member always present (null where there is nothing).
extension Connectivity {
    /// Limits on what a report may carry: a report is small, and its strings end up in
    /// every subscriber's path line.
    public static let maximumTextBytes = 2048
    /// Interface names are at most IFNAMSIZ - 1 bytes.
    public static let maximumInterfaceNameBytes = 15

    func write(to writer: inout JSONWriter, key: String) {
        writer.beginObject(key)
        writer.member("state", state.rawValue)
        if let evidence {
            writer.member("url", evidence.url)
            writer.member("interface", evidence.interface)
            writer.member("httpStatus", evidence.httpStatus)
            writer.member("redirectTarget", evidence.redirectTarget)
            writer.member("bytesReceived", evidence.bytesReceived)
            writer.member("sha256", evidence.bodySHA256)
            writer.member("elapsedMilliseconds", evidence.elapsedMilliseconds)
            writer.member("checkedAt", evidence.checkedAt.description)
            writer.member("error", evidence.error)
        }
        writer.endObject()
    }

    /// Reads a connectivity object. `strict` (a request from a client) refuses what a
    /// probe must not send: `unknown`, missing evidence, overlong text, a malformed
    /// digest or time; lines from the daemon are read leniently (a newer daemon may add
    /// states and members: a state this version does not know is `unrecognized`, with
    /// its evidence).
    static func decode(_ value: JSONValue, strict: Bool) throws(ConnectivityDecodingError) -> Connectivity {
        guard case .object(let members) = value else { throw .init("\"connectivity\" must be an object") }
        guard let stateName = members["state"]?.stringValue else { throw .init("connectivity lacks string \"state\"") }
        let state = ConnectivityState(rawValue: stateName)
        if strict && !state.isRecognized { throw .init("unknown connectivity state \"\(stateName)\"") }
        if state == .unknown {
            if strict { throw .init("a report's state must be full, portal, limited or none") }
            return .unknown
        }
        func text(_ key: String, maximum: Int = maximumTextBytes,
                  optional: Bool) throws(ConnectivityDecodingError) -> String? {
            guard let member = members[key], !member.isNull else {
                if optional || !strict { return nil }
                throw .init("connectivity lacks string \"\(key)\"")
            }
            guard let string = member.stringValue else { throw .init("connectivity \"\(key)\" must be a string") }
            if strict && string.utf8.count > maximum {
                throw .init("connectivity \"\(key)\" is longer than \(maximum) bytes")
            }
            return string
        }
        func integer(_ key: String, in range: ClosedRange<Int64>,
                     optional: Bool) throws(ConnectivityDecodingError) -> Int64? {
            guard let member = members[key], !member.isNull else {
                if optional || !strict { return nil }
                throw .init("connectivity lacks integer \"\(key)\"")
            }
            guard let number = member.integerValue, !strict || range.contains(number) else {
                throw .init("connectivity \"\(key)\" must be an integer from \(range.lowerBound) to "
                            + "\(range.upperBound)")
            }
            return number
        }
        let url = try text("url", optional: false) ?? ""
        let interface = try text("interface", maximum: maximumInterfaceNameBytes, optional: false) ?? ""
        if strict && interface.isEmpty { throw .init("connectivity \"interface\" must name an interface") }
        let status = try integer("httpStatus", in: 100...999, optional: true)
        let digest = try text("sha256", optional: true)
        if strict, let digest,
           digest.utf8.count != 64 || Hexadecimal.bytes(digest) == nil || digest.lowercased() != digest {
            throw .init("connectivity \"sha256\" must be 64 lowercase hexadecimal digits")
        }
        let checkedText = try text("checkedAt", optional: false)
        let checkedAt = checkedText.flatMap(UTCTime.init)
        if strict && checkedAt == nil {
            throw .init("connectivity \"checkedAt\" must be a UTC time as 2026-12-01T08:30:00Z")
        }
        let evidence = ConnectivityEvidence(
            url: url, interface: interface, httpStatus: status.map { Int($0) },
            redirectTarget: try text("redirectTarget", optional: true),
            bytesReceived: try integer("bytesReceived", in: 0...Int64.max, optional: false) ?? 0,
            bodySHA256: digest,
            elapsedMilliseconds: try integer("elapsedMilliseconds", in: 0...Int64.max, optional: false) ?? 0,
            checkedAt: checkedAt ?? UTCTime(secondsSinceEpoch: 0),
            error: try text("error", optional: true))
        return Connectivity(state: state, evidence: evidence)
    }
}

/// Why a connectivity object could not be read.
struct ConnectivityDecodingError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
