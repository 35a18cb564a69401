// SPDX-License-Identifier: Apache-2.0
// Pattern: "are we on the office / home network?" by comparing the gateway with a
// known router, built with NWEndpoint.Host("…") and IPv4Address("…").
import Foundation
import Network

struct KnownNetwork: Sendable {
    let name: String
    let router: NWEndpoint.Host

    init(name: String, routerAddress: String) {
        self.name = name
        self.router = NWEndpoint.Host(routerAddress)
    }

    func matches(_ path: NWPath) -> Bool {
        path.gateways.contains { gateway in
            if case .hostPort(let host, _) = gateway {
                return host == router
            }
            return false
        }
    }
}

let homeNetworks = [
    KnownNetwork(name: "Home", routerAddress: "192.168.1.1"),
    KnownNetwork(name: "Office", routerAddress: "fd00::1"),
]

func isHomeRouter(_ path: NWPath) -> Bool {
    guard let router = IPv4Address("192.168.1.1") else { return false }
    return path.gateways.contains { gateway in
        guard case .hostPort(host: .ipv4(let address), port: _) = gateway else { return false }
        return address == router
    }
}

func routerIsPrivate(_ address: IPv4Address) -> Bool {
    let bytes = [UInt8](address.rawValue)
    return bytes[0] == 10 || (bytes[0] == 172 && (16...31).contains(bytes[1])) || (bytes[0] == 192 && bytes[1] == 168)
}
