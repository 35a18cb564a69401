// SPDX-License-Identifier: Apache-2.0
// Pattern: mapping interface types to UI symbols and labels with an exhaustive switch.
import Network

enum NetworkBadge: String, Sendable {
    case wifi = "wifi"
    case cellular = "antenna.radiowaves.left.and.right"
    case ethernet = "cable.connector"
    case loopback = "arrow.triangle.2.circlepath"
    case other = "network"
    case offline = "wifi.slash"
}

func badge(for interfaceType: NWInterface.InterfaceType) -> NetworkBadge {
    switch interfaceType {
    case .wifi: return .wifi
    case .cellular: return .cellular
    case .wiredEthernet: return .ethernet
    case .loopback: return .loopback
    case .other: return .other
    @unknown default: return .other
    }
}

func badge(for path: NWPath) -> NetworkBadge {
    guard path.status == .satisfied, let primary = path.availableInterfaces.first else {
        return .offline
    }
    return badge(for: primary.type)
}

func label(for interface: NWInterface) -> String {
    switch interface.type {
    case .wifi: return "Wi-Fi (\(interface.name))"
    case .cellular: return "Cellular (\(interface.name))"
    case .wiredEthernet: return "Ethernet (\(interface.name))"
    case .loopback: return "Loopback"
    case .other: return interface.name
    @unknown default: return interface.name
    }
}
