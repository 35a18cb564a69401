// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// What one RTM_NEWLINK / RTM_DELLINK says, before sysfs classification.
package enum LinkMessage: Equatable {
    /// RTM_NEWLINK: the whole link as the kernel describes it now.
    case changed(LinkAttributes)
    /// RTM_DELLINK.
    case removed(InterfaceIndex)
}

/// The rtnetlink facts of a link (`struct ifinfomsg` and its attributes).
package struct LinkAttributes: Equatable {
    package var index: InterfaceIndex
    package var name: String
    package var flags: LinkFlags
    package var operState: OperState
    package var hardwareType: HardwareType
    package var kind: String?
    /// IFLA_MASTER: the bridge, bond, team or VRF this link is a port of.
    package var master: InterfaceIndex?
    /// IFLA_CARRIER_DOWN_COUNT (Linux 4.16 and later).
    package var carrierDownCount: UInt32?
}

package enum LinkDecoder {
    /// Decodes RTM_NEWLINK / RTM_DELLINK; nil for a message to ignore.
    ///
    /// Only `ifi_family == AF_UNSPEC` describes the link itself. The kernel also sends
    /// RTM_NEWLINK with AF_INET6 (`inet6_fill_ifinfo`, net/ipv6/addrconf.c: IPv6
    /// protinfo, no IFLA_OPERSTATE, no IFLA_LINKINFO) and AF_BRIDGE (bridge port
    /// state, RTM_DELLINK when a port leaves a bridge): taking those as the link would
    /// lose its operstate and kind, or delete a link that still exists.
    package static func decode(_ header: UnsafeMutablePointer<nlmsghdr>) -> LinkMessage? {
        let type = Int(header.pointee.nlmsg_type)
        guard type == RTM_NEWLINK || type == RTM_DELLINK,
              header.hasPayload(of: ifinfomsg.self) else { return nil }
        let info = header.payload(as: ifinfomsg.self)
        guard info.ifi_family == UInt8(AF_UNSPEC), info.ifi_index > 0 else { return nil }
        let index = InterfaceIndex(rawValue: info.ifi_index)
        if type == RTM_DELLINK { return .removed(index) }

        return Attributes.parse(header, headerSize: MemoryLayout<ifinfomsg>.size,
                                maxType: Int(__IFLA_MAX) - 1) { attributes -> LinkMessage? in
            guard let name = attributes.string(Int(IFLA_IFNAME)), !name.isEmpty else { return nil }
            // IFLA_OPERSTATE is absent only on very old kernels; unknown is what they meant.
            let operState = attributes.uint8(Int(IFLA_OPERSTATE)).flatMap(OperState.init(rawValue:)) ?? .unknown
            var kind: String?
            if let linkInfo = attributes[Int(IFLA_LINKINFO)] {
                kind = Attributes.parseNested(linkInfo, maxType: Int(__IFLA_INFO_MAX) - 1) {
                    $0.string(Int(IFLA_INFO_KIND))
                } ?? nil
            }
            // IFLA_MASTER is present only while the link is a port (`rtnl_fill_ifinfo`,
            // net/core/rtnetlink.c); leaving a bridge sends RTM_NEWLINK without it.
            let master = attributes.uint32(Int(IFLA_MASTER)).flatMap {
                $0 == 0 ? nil : InterfaceIndex(rawValue: Int32(bitPattern: $0))
            }
            return .changed(LinkAttributes(
                index: index, name: name, flags: LinkFlags(rawValue: info.ifi_flags),
                operState: operState, hardwareType: HardwareType(rawValue: info.ifi_type), kind: kind, master: master,
                carrierDownCount: attributes.uint32(Int(IFLA_CARRIER_DOWN_COUNT))))
        } ?? nil
    }
}
