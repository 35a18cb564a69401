// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// A Linux bridge br0 in A that takes over vA's network: 198.51.100.2/24 and the default
/// route move to br0, and vA becomes (or stops being) its one port. With vA as a port,
/// br0 reaches the router vB through the veth pair as vA did.
extension VethTopology {
    /// br0 with A's address and default route, and no port: the kernel reports it
    /// UP, LOWER_UP, operstate UNKNOWN.
    func addPortlessBridge() throws {
        try deleteDefaultRoute()
        try removeIPv4()
        try a.ip("link", "add", "br0", "type", "bridge")
        try a.ip("link", "set", "br0", "up")
        try a.ip("address", "add", "198.51.100.2/24", "dev", "br0")
        try a.ip("route", "add", "default", "via", Self.routerAddress, "dev", "br0")
    }

    func addBridgePort() throws {
        try a.ip("link", "set", "vA", "master", "br0")
    }

    func removeBridgePort() throws {
        try a.ip("link", "set", "vA", "nomaster")
    }

    /// The `interfaces` report of one link, asked on a connection of its own.
    func interfaceReport(of name: String) throws -> [String: Any] {
        let client = try Subscriber(socketPath: socketPath, request: "{\"op\":\"interfaces\"}")
        defer { client.close() }
        let line = try client.waitFor("the interfaces reply") { $0["type"] as? String == "interfaces" }
        let reports = line["interfaces"] as? [[String: Any]] ?? []
        guard let report = reports.first(where: { $0["name"] as? String == name }) else {
            throw HarnessError("no \(name) in the interfaces reply: \(line)")
        }
        return report
    }
}
