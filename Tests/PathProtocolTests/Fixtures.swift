// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import PathModel
import PathProtocol
import Testing

/// The wire-format tests' part of the shared `Fixture`: path updates (PathProtocol's
/// values) and the golden files next to this source file.
extension Fixture {
    /// The update pinned by Golden/path-satisfied.jsonl: behind a captive portal, on the
    /// network a `[Network]` section names home and calls free, beside a wired link whose
    /// network is pending.
    static let satisfied = PathUpdate(
        generation: Generation(rawValue: 3), sequence: 7,
        path: Path(status: .satisfied, availableInterfaces: [
                       Interface(name: "wlan0", index: wlanIndex, type: .wifi, network: home),
                       Interface(name: "eth0", index: ethIndex, type: .wiredEthernet,
                                 network: LinkNetwork(state: .pending, anchor: .gatewayMAC)),
                   ], isExpensive: false, isConstrained: true, isExpensiveSetBy: .network,
                   isConstrainedSetBy: .interface,
                   supportsIPv4: true, supportsIPv6: true, supportsDNS: true,
                   gateways: [ip("fe80::1"), ip("192.0.2.1")]),
        connectivity: portal)

    /// The network `satisfied` is on.
    static let home = LinkNetwork(state: .identified, id: NetworkID("5f0c1e0f8b6a4c2d9e7f3a1b2c4d6e8f"), name: "home",
                                  anchor: .gatewayMAC)

    /// The update pinned by Golden/path-unsatisfied.jsonl.
    static let unsatisfied = PathUpdate(
        generation: Generation(rawValue: 3), sequence: 8,
        path: Path(status: .unsatisfied, unsatisfiedReason: .noCarrier, reasonInterface: "eth0"))

    /// A backup's subscription (`prohibitExpensivePaths`) while the path goes through a
    /// tethered phone: pinned by Golden/path-with-id.jsonl.
    static let expensiveExcluded = PathUpdate(
        generation: Generation(rawValue: 3), sequence: 2,
        path: Path(status: .unsatisfied, unsatisfiedReason: .expensiveExcluded, reasonInterface: "usb0",
                   isExpensive: true))

    /// A photo sync's subscription (`requiredNetwork` home) while wlan0 is on another
    /// network: pinned by Golden/path-with-id.jsonl.
    static let networkExcluded = PathUpdate(
        generation: Generation(rawValue: 4), sequence: 1,
        path: Path(status: .unsatisfied, unsatisfiedReason: .networkExcluded, reasonInterface: "wlan0"))

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
