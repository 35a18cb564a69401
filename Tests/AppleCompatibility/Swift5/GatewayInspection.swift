// SPDX-License-Identifier: Apache-2.0
// Pattern: reading the router's address from path.gateways: `.hostPort(let host, _)`,
// then `.ipv4(let address)` / `.ipv6` / `.name`.
import Foundation
import Network

func gatewayAddresses(of path: NWPath) -> [String] {
    path.gateways.compactMap { endpoint -> String? in
        guard case .hostPort(let host, _) = endpoint else { return nil }
        switch host {
        case .ipv4(let address):
            return "\(address)"
        case .ipv6(let address):
            return "\(address)"
        case .name(let name, _):
            return name
        @unknown default:
            return nil
        }
    }
}

func firstIPv4Gateway(of path: NWPath) -> IPv4Address? {
    for gateway in path.gateways {
        if case .hostPort(host: .ipv4(let address), port: _) = gateway {
            return address
        }
    }
    return nil
}

func gatewayBytes(of path: NWPath) -> [[UInt8]] {
    path.gateways.compactMap { gateway in
        switch gateway {
        case .hostPort(let host, _):
            switch host {
            case .ipv4(let address): return [UInt8](address.rawValue)
            case .ipv6(let address): return [UInt8](address.rawValue)
            default: return nil
            }
        default:
            return nil
        }
    }
}

func hasLinkLocalIPv6Gateway(_ path: NWPath) -> Bool {
    path.gateways.contains { endpoint in
        if case let .hostPort(.ipv6(address), _) = endpoint {
            return address.isLinkLocal
        }
        return false
    }
}
