// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// What one RTM_NEWNEIGH / RTM_DELNEIGH says.
package enum NeighbourMessage: Equatable {
    case changed(Neighbour)
    case removed(Neighbour.Key)
}

package enum NeighbourDecoder {
    /// The kernel's neighbour ages (`struct nda_cacheinfo`) are clock ticks
    /// (`jiffies_to_clock_t`): USER_HZ, which is `sysconf(_SC_CLK_TCK)`.
    static let ticksPerSecond: Int64 = {
        let ticks = Int64(sysconf(Int32(_SC_CLK_TCK)))
        return ticks > 0 ? ticks : 100
    }()

    /// Decodes RTM_NEWNEIGH / RTM_DELNEIGH of AF_INET and AF_INET6 with an NDA_DST of
    /// the family; nil otherwise (a bridge's forwarding entries, a proxy entry without
    /// an address). The entry's confirmation is `readAt` less its `ndm_confirmed` age
    /// and one tick more (the kernel truncates the age to whole ticks). For an answer
    /// to a request, `readAt` is when the request was sent, so the confirmation is never
    /// later than it was; for an event, when it was read, later than the kernel wrote
    /// it by the socket's delay, which the event's order makes harmless: an event the
    /// kernel wrote before a carrier loss is read before the loss is
    /// (docs/ARCHITECTURE.md, "Network identity").
    package static func decode(_ header: UnsafeMutablePointer<nlmsghdr>,
                               readAt: MonotonicInstant) -> NeighbourMessage? {
        let type = Int(header.pointee.nlmsg_type)
        guard type == Int(RTM_NEWNEIGH) || type == Int(RTM_DELNEIGH), header.hasPayload(of: ndmsg.self) else {
            return nil
        }
        let message = header.payload(as: ndmsg.self)
        guard let family = AddressFamily(linuxValue: message.ndm_family), message.ndm_ifindex > 0 else { return nil }
        return Attributes.parse(header, headerSize: MemoryLayout<ndmsg>.size,
                                maxType: Int(__NDA_MAX) - 1) { attributes -> NeighbourMessage? in
            guard let address = attributes.ipAddress(Int(NDA_DST)), address.family == family else { return nil }
            let interface = InterfaceIndex(rawValue: message.ndm_ifindex)
            if type == Int(RTM_DELNEIGH) { return .removed(Neighbour.Key(interface: interface, address: address)) }
            let confirmedAt = attributes.payload(Int(NDA_CACHEINFO)).flatMap { bytes -> MonotonicInstant? in
                guard bytes.count >= MemoryLayout<nda_cacheinfo>.size else { return nil }
                let ticks = Int64(bytes.loadUnaligned(as: nda_cacheinfo.self).ndm_confirmed) + 1
                return readAt - .nanoseconds(ticks * 1_000_000_000 / ticksPerSecond)
            }
            return .changed(Neighbour(
                interface: interface, address: address,
                linkLayerAddress: attributes.payload(Int(NDA_LLADDR)).flatMap { LinkLayerAddress(bytes: $0) },
                state: NeighbourState(rawValue: message.ndm_state),
                isRouter: message.ndm_flags & UInt8(NTF_ROUTER) != 0, confirmedAt: confirmedAt))
        } ?? nil
    }
}
