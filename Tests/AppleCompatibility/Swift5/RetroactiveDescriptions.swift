// SPDX-License-Identifier: Apache-2.0
// Pattern: Swift 5-era extensions that give Apple's enums descriptions and a case list
// (Reachability-style libraries iterate every interface type).
import Network

extension NWPath.Status: CustomStringConvertible {
    public var description: String {
        switch self {
        case .satisfied: return "satisfied"
        case .unsatisfied: return "unsatisfied"
        case .requiresConnection: return "requiresConnection"
        @unknown default: return "unknown"
        }
    }
}

extension NWInterface.InterfaceType: CaseIterable {
    public static var allCases: [NWInterface.InterfaceType] = [
        .other,
        .wifi,
        .cellular,
        .loopback,
        .wiredEthernet,
    ]
}

extension NWInterface.InterfaceType: CustomStringConvertible {
    public var description: String {
        switch self {
        case .other: return "Other"
        case .wifi: return "Wi-Fi"
        case .cellular: return "Cellular"
        case .wiredEthernet: return "Ethernet"
        case .loopback: return "Loopback"
        @unknown default: return "Unknown"
        }
    }
}

func connectionTypes(of path: NWPath) -> [NWInterface.InterfaceType] {
    NWInterface.InterfaceType.allCases.filter { path.usesInterfaceType($0) }
}

func summary(of path: NWPath) -> String {
    "\(path.status) via " + connectionTypes(of: path).map(\.description).joined(separator: ", ")
}
