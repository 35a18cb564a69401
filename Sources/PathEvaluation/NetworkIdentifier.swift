// SPDX-License-Identifier: Apache-2.0
import PathSettings
import PathModel

/// Which network a link is on, and what traffic over it costs: a pure function of the
/// snapshot and the policy (its `[Network]` sections and key), so that the daemon and
/// the client's in-process engine, evaluating the same state, give the same IDs.
/// docs/ARCHITECTURE.md, "Network identity".
public enum NetworkIdentifier {
    /// One link's answer.
    public struct Identification: Hashable, Sendable {
        /// Nil for a link on no network (no carrier, loopback) or when no key is known.
        public var network: LinkNetwork?
        /// The facts `network.id` hashes, while identified: for privileged peers only.
        public var facts: NetworkFacts?
        public var cost: LinkCost
    }

    /// Identifies the network `link` is on, `state` being its state
    /// (`Snapshot.linkState(of:)`), and settles its cost.
    public static func identify(_ link: Link, state: LinkState, in snapshot: Snapshot, policy: Policy,
                                settings: LinkSettings) -> Identification {
        let hints = hints(of: link, in: snapshot)
        let cost = policy.cost(of: settings, network: nil, hints: hints)
        guard let key = policy.networkKey, state == .usable, !link.isLoopback else {
            return Identification(network: nil, facts: nil, cost: cost)
        }
        // Each answer made whole where it is known, not changed part by part: every
        // assignment to an optional network copies and destroys through its witnesses.
        let outcome = link.resolvesNeighbours ? anchorOnNeighbour(link, in: snapshot)
                                              : anchorWithoutLayer2(link, in: snapshot)
        switch outcome {
        case .waiting(let state, let anchor):
            return Identification(network: LinkNetwork(state: state, anchor: anchor), facts: nil, cost: cost)
        case .anchored(let facts):
            let id = key.id(of: facts)
            // The candidate only for sections to match: with none, its parts are not gathered.
            let section = policy.networks.isEmpty ? nil : policy.network(for: NetworkCandidate(
                id: id, facts: facts, link: link, gateways: gateways(of: link, in: snapshot),
                addresses: snapshot.addresses[link.index].map { $0.values.map(\.address) } ?? [], hints: hints))
            return Identification(network: LinkNetwork(state: .identified, id: id, name: section?.stated.name,
                                                       anchor: facts.anchor),
                                  facts: facts,
                                  cost: section.map { policy.cost(of: settings, network: $0, hints: hints) } ?? cost)
        }
    }

    /// The hints about the link's network: what the daemon learnt (`Snapshot.hints`)
    /// and what the link's driver says (`NetworkHint.ofDriver`).
    static func hints(of link: Link, in snapshot: Snapshot) -> NetworkHints {
        var hints = snapshot.hints[link.index] ?? .none
        if let driverHint = NetworkHint.ofDriver(link.driver) { hints.names.insert(driverHint) }
        return hints
    }

    private enum Outcome {
        case anchored(NetworkFacts)
        case waiting(LinkNetwork.State, anchor: LinkNetwork.Anchor?)
    }

    /// A link with layer 2: its anchoring gateway's MAC, confirmed on the present carrier
    /// (`Snapshot.confirmedNeighbour`); a virtual router's MAC with the gateway and its
    /// prefix. Pending while the carrier settles, else unidentified.
    private static func anchorOnNeighbour(_ link: Link, in snapshot: Snapshot) -> Outcome {
        guard let gateway = snapshot.anchorGateway(of: link.index) else { return .waiting(.unidentified, anchor: nil) }
        guard let mac = snapshot.confirmedNeighbour(of: gateway, on: link.index)?.resolvedAddress else {
            let settling = snapshot.carrierEpochs[link.index]?.isSettling ?? false
            return .waiting(settling ? .pending : .unidentified, anchor: .gatewayMAC)
        }
        guard mac.isVirtualRouter else { return .anchored(NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [mac])) }
        return .anchored(NetworkFacts(anchor: .virtualRouter, gatewayMACs: [mac], gateways: [gateway],
                                      prefix: prefix(holding: gateway, on: link.index, in: snapshot)))
    }

    /// A link without layer 2: its kind and gateway, else its kind and the prefix of its
    /// first address (IPv4 first, not link-local).
    private static func anchorWithoutLayer2(_ link: Link, in snapshot: Snapshot) -> Outcome {
        let kind = link.kind ?? "hardware-\(link.hardwareType.rawValue)"
        if let gateway = snapshot.anchorGateway(of: link.index) {
            return .anchored(NetworkFacts(anchor: .gateway, gateways: [gateway], linkKind: kind))
        }
        let own = snapshot.addresses(of: link.index).first { !$0.address.isLinkLocal }
        guard let own, let prefix = IPPrefix(own.address, length: own.prefixLength) else {
            return .waiting(.unidentified, anchor: nil)
        }
        return .anchored(NetworkFacts(anchor: .prefix, prefix: prefix, linkKind: kind))
    }

    /// The prefix of the link's address that holds `gateway`; for a link-local gateway
    /// (an IPv6 router's fe80:: address, which every site shares), the prefix of the
    /// link's first address of the family that is not link-local.
    static func prefix(holding gateway: IPAddress, on index: InterfaceIndex, in snapshot: Snapshot) -> IPPrefix? {
        let prefixes = snapshot.addresses(of: index).filter { $0.family == gateway.family && !$0.address.isLinkLocal }
            .compactMap { IPPrefix($0.address, length: $0.prefixLength) }
        if gateway.isLinkLocal { return prefixes.first }
        return prefixes.first { $0.contains(gateway) }
    }

    /// The link's gateways, IPv4 first.
    static func gateways(of link: Link, in snapshot: Snapshot) -> [IPAddress] {
        AddressFamily.allCases.compactMap { snapshot.gateway(of: link.index, family: $0) }
    }
}
