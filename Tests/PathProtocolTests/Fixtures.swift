import Foundation
import PathModel
import PathProtocol
import Testing

/// Paths and helpers shared by the wire-format tests.
enum Fixture {
    static let eth0 = Interface(name: "eth0", index: InterfaceIndex(rawValue: 2), type: .wiredEthernet)
    static let wlan0 = Interface(name: "wlan0", index: InterfaceIndex(rawValue: 3), type: .wifi)

    static func ip(_ text: String) -> IPAddress {
        guard let address = IPAddress(text) else { preconditionFailure("fixture address \(text) does not parse") }
        return address
    }

    /// The update pinned by Golden/path-satisfied.jsonl: behind a captive portal.
    static let satisfied = PathUpdate(
        generation: Generation(rawValue: 3), sequence: 7,
        path: Path(status: .satisfied, availableInterfaces: [wlan0, eth0], isExpensive: false, isConstrained: true,
                   supportsIPv4: true, supportsIPv6: true, supportsDNS: true,
                   gateways: [ip("fe80::1"), ip("192.0.2.1")]),
        connectivity: portal)

    /// A 302 to a login page, seen through wlan0.
    static let portal = Connectivity(state: .portal, evidence: ConnectivityEvidence(
        url: "http://check.example.org/pathd", interface: "wlan0", httpStatus: 302, redirectTarget: "http://login.example/",
        bytesReceived: 0, bodySHA256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        elapsedMilliseconds: 12, checkedAt: timestamp("2026-12-01T08:30:00Z")))

    /// The expected content, through eth0.
    static let full = Connectivity(state: .full, evidence: ConnectivityEvidence(
        url: "http://check.example.org/pathd", interface: "eth0", httpStatus: 200, bytesReceived: 9,
        bodySHA256: "5200f31394e983861b573ecf424853b57ad2abc2218a0d2cc390877a6bcc2197",
        elapsedMilliseconds: 31, checkedAt: timestamp("2026-12-01T08:29:58Z")))

    static func timestamp(_ text: String) -> UTCTime {
        guard let time = UTCTime(text) else { preconditionFailure("fixture time \(text) does not parse") }
        return time
    }

    /// The update pinned by Golden/path-unsatisfied.jsonl.
    static let unsatisfied = PathUpdate(
        generation: Generation(rawValue: 3), sequence: 8,
        path: Path(status: .unsatisfied, unsatisfiedReason: .noCarrier, reasonInterface: "eth0"))

    static let requiresConnection = PathUpdate(
        generation: Generation(rawValue: 18), sequence: 1,
        path: Path(status: .requiresConnection,
                   availableInterfaces: [Interface(name: "ppp0", index: InterfaceIndex(rawValue: 40), type: .cellular)],
                   isExpensive: true, supportsIPv4: true))

    /// The bytes of a file in Golden/, found next to this source file (no resource bundle).
    static func golden(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden").appendingPathComponent(name)
        return Array(try Data(contentsOf: url))
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Parses a line that must be a JSON object, newline allowed.
    static func object(_ line: [UInt8]) throws -> [String: JSONValue] {
        guard case .object(let members) = try JSONParser.parse(line) else {
            Issue.record("not a JSON object: \(String(decoding: line, as: UTF8.self))")
            return [:]
        }
        return members
    }
}
