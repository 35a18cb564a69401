// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// What one RTM_NEWADDR / RTM_DELADDR says.
package enum AddressMessage: Equatable {
    case changed(InterfaceAddress)
    case removed(InterfaceAddress.Key)
}

package enum AddressDecoder {
    /// Decodes RTM_NEWADDR / RTM_DELADDR of AF_INET and AF_INET6; nil otherwise.
    ///
    /// The local address is IFA_LOCAL when present, else IFA_ADDRESS: on a
    /// point-to-point address IFA_ADDRESS is the peer and IFA_LOCAL ours, for IPv4 and
    /// IPv6 alike (`inet_fill_ifaddr` / `inet6_fill_ifaddr`; iproute2 prints it so).
    /// IFA_FLAGS (32 bits) replaces the 8-bit `ifa_flags` when present: flags above
    /// 0x80 (e.g. IFA_F_NOPREFIXROUTE) exist only there (linux/if_addr.h).
    package static func decode(_ header: UnsafeMutablePointer<nlmsghdr>) -> AddressMessage? {
        let type = Int(header.pointee.nlmsg_type)
        guard type == RTM_NEWADDR || type == RTM_DELADDR,
              header.hasPayload(of: ifaddrmsg.self) else { return nil }
        let message = header.payload(as: ifaddrmsg.self)
        guard let family = AddressFamily(linuxValue: message.ifa_family), message.ifa_index > 0 else { return nil }

        return Attributes.parse(header, headerSize: MemoryLayout<ifaddrmsg>.size,
                                maxType: Int(__IFA_MAX) - 1) { attributes -> AddressMessage? in
            guard let address = attributes.ipAddress(Int(IFA_LOCAL)) ?? attributes.ipAddress(Int(IFA_ADDRESS)),
                  address.family == family else { return nil }
            let value = InterfaceAddress(
                interface: InterfaceIndex(rawValue: Int32(bitPattern: message.ifa_index)),
                address: address,
                prefixLength: message.ifa_prefixlen,
                flags: AddressFlags(rawValue: attributes.uint32(Int(IFA_FLAGS)) ?? UInt32(message.ifa_flags)),
                scope: AddressScope(rawValue: message.ifa_scope))
            return type == RTM_DELADDR ? .removed(value.key) : .changed(value)
        } ?? nil
    }
}
