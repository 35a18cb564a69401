// SPDX-License-Identifier: Apache-2.0
// Pattern: "is a VPN on?" and "what is the VPN running over?" from one path, as
// privacy and streaming apps check it; also reads interface indexes for logging.
import Network

struct VPNStatus: Equatable, Sendable {
    var isActive: Bool
    var tunnelName: String?
    var underlayType: NWInterface.InterfaceType?
    var underlayIndex: Int?
}

func vpnStatus(of path: NWPath) -> VPNStatus {
    let tunnelPrefixes = ["utun", "ipsec", "ppp", "tun", "tap", "wg"]
    let tunnel = path.availableInterfaces.first { interface in
        interface.type == .other && tunnelPrefixes.contains(where: interface.name.hasPrefix)
    }
    let underlay = path.availableInterfaces.first { $0.type != .other && $0.type != .loopback }
    return VPNStatus(isActive: tunnel != nil && path.status == .satisfied,
                     tunnelName: tunnel?.name,
                     underlayType: underlay?.type,
                     underlayIndex: underlay?.index)
}

func vpnIsOverCellular(_ path: NWPath) -> Bool {
    path.usesInterfaceType(.other) && path.usesInterfaceType(.cellular)
}
