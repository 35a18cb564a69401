// SPDX-License-Identifier: Apache-2.0
/// The neighbour facts network identity reads, as pure questions of a snapshot: which
/// gateways anchor a link's identity, and which of them the kernel has not confirmed
/// on the present carrier. `NetworkIdentifier` (PathEvaluation) identifies with them;
/// `KernelStateTracker` asks the kernel again about the unconfirmed ones.
extension Snapshot {
    /// The gateway of the link's own route for `family` (`interfaceLookups`), when the
    /// route leaves by the link through one.
    public func gateway(of index: InterfaceIndex, family: AddressFamily) -> IPAddress? {
        guard case .route(let answer)? = interfaceLookups[family]?[index], answer.outputInterface == index,
              let gateway = answer.gateway, gateway.family == family else { return nil }
        return gateway
    }

    /// The gateway a link's identity is anchored on: its IPv4 gateway when it has one,
    /// else its IPv6 default router. One family only, so that an identity does not
    /// change when the other family's router is confirmed later; a home router answers
    /// both with one MAC, and the ID hashes the MAC, not the family, so it is the same
    /// whichever family anchors it.
    public func anchorGateway(of index: InterfaceIndex) -> IPAddress? {
        gateway(of: index, family: .ipv4) ?? gateway(of: index, family: .ipv6)
    }

    /// The entry of `gateway` on the link when it names the network: resolved, and
    /// confirmed on the present carrier (`Neighbour.isConfirmed(since:)`).
    public func confirmedNeighbour(of gateway: IPAddress, on index: InterfaceIndex) -> Neighbour? {
        guard let entry = neighbours[index]?[gateway], entry.isConfirmed(since: carrierEpochs[index]) else {
            return nil
        }
        return entry
    }

    /// The anchoring gateways of links that resolve neighbours and have carrier whose
    /// entry does not name the network (absent, unresolved, or confirmed only before the
    /// last carrier loss), in order: what the kernel is asked about again, since a
    /// confirmation by traffic (a TCP acknowledgement) updates an entry without a message.
    public var unconfirmedGateways: [Neighbour.Key] {
        links.values.compactMap { link -> Neighbour.Key? in
            guard link.resolvesNeighbours, link.hasCarrier, !link.isLoopback,
                  let gateway = anchorGateway(of: link.index),
                  confirmedNeighbour(of: gateway, on: link.index) == nil else { return nil }
            return Neighbour.Key(interface: link.index, address: gateway)
        }.sorted()
    }

    /// The entries `events` remove that the snapshot, or an event before the removal,
    /// held: entries gone, with whatever resolution the kernel ran for them. A flush that
    /// takes an entry pathd had just resolved, in the same batch as the resolution's
    /// answer, leaves the snapshot as unconfirmed as before it, and nothing is resolving.
    public func entriesRemoved(by events: [NetworkEvent]) -> Set<Neighbour.Key> {
        var held: [Neighbour.Key: Bool] = [:]
        var removed: Set<Neighbour.Key> = []
        for event in events {
            switch event {
            case .neighbourChanged(let neighbour):
                held[neighbour.key] = true
            case .neighbourRemoved(let key):
                if held[key] ?? (neighbours[key.interface]?[key.address] != nil) { removed.insert(key) }
                held[key] = false
            default:
                continue
            }
        }
        return removed
    }
}
