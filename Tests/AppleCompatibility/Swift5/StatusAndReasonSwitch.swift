// SPDX-License-Identifier: Apache-2.0
// Pattern: exhaustive switches over NWPath.Status and NWPath.UnsatisfiedReason with
// `@unknown default`, as the compiler asks for Apple's non-frozen enums.
import Network

func statusMessage(for path: NWPath) -> String {
    switch path.status {
    case .satisfied:
        return "Connected"
    case .unsatisfied:
        return "No connection: " + reasonMessage(path.unsatisfiedReason)
    case .requiresConnection:
        return "Connection available on demand"
    @unknown default:
        return "Unknown network status"
    }
}

@available(iOS 14.0, macOS 11.0, *)
func reasonMessage(_ reason: NWPath.UnsatisfiedReason) -> String {
    switch reason {
    case .notAvailable:
        return "no network is available"
    case .cellularDenied:
        return "the user has disabled cellular data for this app"
    case .wifiDenied:
        return "the user has disabled Wi-Fi for this app"
    case .localNetworkDenied:
        return "the user has not allowed local network access"
    case .vpnInactive:
        return "the required VPN is not active"
    @unknown default:
        return "an unknown reason"
    }
}

func shouldShowSettingsButton(for path: NWPath) -> Bool {
    guard path.status == .unsatisfied else { return false }
    if #available(iOS 14.0, macOS 11.0, *) {
        return [.cellularDenied, .wifiDenied, .localNetworkDenied].contains(path.unsatisfiedReason)
    }
    return false
}
