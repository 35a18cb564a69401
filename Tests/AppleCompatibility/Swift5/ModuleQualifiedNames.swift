// SPDX-License-Identifier: Apache-2.0
// Pattern: packet-tunnel code that keeps two `NWPath`s apart, as NetworkExtension code
// does (NetworkExtension has a legacy `NWPath` class of its own): every Network type is
// written with its module, `Network.NWPath`, `Network.NWPathMonitor`,
// `Network.NWPath.Status`, `Network.NWInterface.InterfaceType`, `Network.NWEndpoint`.
// Here the other `NWPath` is the provider's own nested type, so an unqualified `NWPath`
// inside it is not Network's.
import Foundation
import Network

final class TunnelPathReporter: @unchecked Sendable {
    /// The provider's own path record, named as NetworkExtension's legacy class is.
    struct NWPath: Equatable, Sendable {
        var isUsable: Bool
        var isExpensive: Bool
        var underlyingType: String
        var gateway: String?
    }

    private let monitor = Network.NWPathMonitor(prohibitedInterfaceTypes: [Network.NWInterface.InterfaceType.other])
    private let queue = DispatchQueue(label: "com.example.tunnel.path")
    private let report: @Sendable (NWPath) -> Void

    init(report: @escaping @Sendable (NWPath) -> Void) {
        self.report = report
    }

    func start() {
        monitor.pathUpdateHandler = { [report] (path: Network.NWPath) in
            report(Self.record(of: path))
        }
        monitor.start(queue: queue)
    }

    func stop() {
        monitor.cancel()
    }

    var lastKnown: NWPath { Self.record(of: monitor.currentPath) }

    static func record(of path: Network.NWPath) -> NWPath {
        let status: Network.NWPath.Status = path.status
        let first: Network.NWInterface? = path.availableInterfaces.first
        return NWPath(isUsable: status == Network.NWPath.Status.satisfied, isExpensive: path.isExpensive,
                      underlyingType: first.map { name(of: $0.type) } ?? "none",
                      gateway: path.gateways.first.flatMap(address(of:)))
    }

    static func name(of type: Network.NWInterface.InterfaceType) -> String {
        switch type {
        case Network.NWInterface.InterfaceType.wifi: "wifi"
        case .cellular: "cellular"
        case .wiredEthernet: "ethernet"
        case .loopback: "loopback"
        case .other: "other"
        @unknown default: "unknown"
        }
    }

    static func address(of endpoint: Network.NWEndpoint) -> String? {
        guard case Network.NWEndpoint.hostPort(let host, _) = endpoint else { return nil }
        switch host {
        case .ipv4(let address): return "\(address)"
        case .ipv6(let address): return "\(address)"
        case .name(let name, _): return name
        @unknown default: return nil
        }
    }

    static func why(_ path: Network.NWPath) -> String {
        switch path.unsatisfiedReason {
        case Network.NWPath.UnsatisfiedReason.notAvailable: "not available"
        case .cellularDenied: "cellular denied"
        case .wifiDenied: "wifi denied"
        case .localNetworkDenied: "local network denied"
        case .vpnInactive: "VPN inactive"
        @unknown default: "unknown"
        }
    }

    static let tunnelServer: Network.IPv4Address? = Network.IPv4Address("192.0.2.10")
}
