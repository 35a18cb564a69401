// SPDX-License-Identifier: Apache-2.0
import PathSettings
import PathModel

extension InterfaceReport {
    /// One report per link of `snapshot`, in index order.
    public static func reports(for snapshot: Snapshot, policy: Policy) -> [InterfaceReport] {
        let states = snapshot.linkStates()
        return snapshot.sortedLinks.map {
            report(for: $0, state: states[$0.index] ?? $0.linkState, in: snapshot, policy: policy)
        }
    }

    /// The report of one link. The first reason that applies wins, in the order a
    /// person would fix them: configuration, loopback, admin state, carrier, addresses.
    /// Carrier is as `Snapshot.linkState(of:)` says: a bridge with no port up has none.
    public static func report(for link: Link, in snapshot: Snapshot, policy: Policy) -> InterfaceReport {
        report(for: link, state: snapshot.linkState(of: link), in: snapshot, policy: policy)
    }

    private static func report(for link: Link, state: LinkState, in snapshot: Snapshot,
                               policy: Policy) -> InterfaceReport {
        let settings = policy.settings(for: link)
        let addresses = snapshot.addresses(of: link.index)
        let reason: UnusableReason?
        if settings.isIgnored {
            reason = .ignored
        } else if link.isLoopback {
            reason = .loopback
        } else {
            switch state {
            case .adminDown: reason = .adminDown
            case .dormant: reason = .dormant
            case .noCarrier: reason = .noCarrier
            case .usable:
                let addressed = AddressFamily.allCases.contains { snapshot.hasUsableAddress(link.index, family: $0) }
                reason = addressed ? nil : .noUsableAddress
            }
        }
        let identification = NetworkIdentifier.identify(link, state: state, in: snapshot, policy: policy,
                                                         settings: settings)
        let cost = identification.cost
        return InterfaceReport(name: link.name, index: link.index, type: settings.type,
                               kind: link.kind, operState: link.operState, flags: link.flags, addresses: addresses,
                               isExpensive: cost.isExpensive, isConstrained: cost.isConstrained,
                               isExpensiveSetBy: cost.isExpensiveSetBy, isConstrainedSetBy: cost.isConstrainedSetBy,
                               network: identification.network, networkFacts: identification.facts,
                               unusableReason: reason)
    }
}
