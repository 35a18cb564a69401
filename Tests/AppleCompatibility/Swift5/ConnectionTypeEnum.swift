// SPDX-License-Identifier: Apache-2.0
// Pattern: the app's own connection-type enum made from a path, with the order most
// apps use (Wi-Fi before wired before cellular) and an "unknown" fallback.
import Network

enum ConnectionKind: String, CaseIterable, Sendable {
    case wifi
    case wiredEthernet
    case cellular
    case loopback
    case other
    case offline

    init(path: NWPath) {
        guard path.status == .satisfied else {
            self = .offline
            return
        }
        let ordered: [(NWInterface.InterfaceType, ConnectionKind)] = [
            (.wifi, .wifi),
            (.wiredEthernet, .wiredEthernet),
            (.cellular, .cellular),
            (.loopback, .loopback),
        ]
        self = ordered.first { path.usesInterfaceType($0.0) }?.1 ?? .other
    }

    var allowsVideoAutoplay: Bool {
        self == .wifi || self == .wiredEthernet
    }
}
