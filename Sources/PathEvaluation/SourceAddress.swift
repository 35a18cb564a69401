// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Whether traffic has a source address: the rule, in one place.
///
/// Where the kernel was asked (the route lookup, no criteria), its answer decides: the
/// reply's RTA_PREFSRC is the source it would use, and no RTA_PREFSRC means it found
/// none. Where it was not (criteria, `Ignore=`, the `interfaces` report), the same
/// choice is made from the addresses, as the kernel makes it:
///
/// - IPv4 (`fib_result_prefsrc`, net/ipv4/fib_semantics.c; `inet_select_addr`,
///   net/ipv4/devinet.c): the route's own `src` if it has one; else a primary address of
///   the output link whose scope reaches as far as the route's scope (a link-scope
///   address only for a link-scope route, which is what makes `169.254.x.y/16 scope link`
///   with `default dev eth0` work and `default via` a gateway not); else any link's
///   primary address that is not link-scope and reaches that far. Address flags play no
///   part: the kernel has no IPv4 DAD.
/// - IPv6 (`ipv6_dev_get_saddr`, net/ipv6/addrconf.c): for a global destination the
///   candidates are the addresses of every link, except tentative ones that are not
///   optimistic (`optimistic_dad=1`: usable during DAD, RFC 4429) and so also those whose
///   DAD failed (`addrconf_dad_stop` leaves them tentative, not optimistic). RFC 6724's
///   scope rule comes before every other, so a global candidate, if any, wins.
///
/// Either way a source counts only if traffic from it can be answered: never a loopback
/// address, and for IPv6 never a link-local one (fe80::/10: routers do not forward it,
/// RFC 4291 §2.5.6). The kernel itself picks fe80:: for a global destination when it has
/// nothing better; for IPv4 it never picks a link-scope address for a gateway route.
/// The one exception is traffic that stays on the link (`IPAddress.isLinkScoped`: a
/// `route` request for fe80::1 or ff02::1): there a link-local source is the kernel's
/// choice by RFC 6724's scope rule and is answered on the link, so it counts. The
/// default path asks about an address beyond the link, never such a one.
extension IPAddress {
    /// Whether the kernel's choice of this address as the source makes the family
    /// usable (see above).
    public var countsAsSource: Bool {
        // An IPv4 link-local source serves a link-scope route (above).
        !isUnspecified && !isLoopback && (family == .ipv4 || !isLinkLocal)
    }

    /// Whether the kernel's choice of this address as the source of traffic to
    /// `destination` makes that traffic possible: `countsAsSource`, or a link-local
    /// source for a destination on the link (see above).
    public func countsAsSource(toward destination: IPAddress) -> Bool {
        if countsAsSource { return true }
        return destination.isLinkScoped && family == destination.family && family == .ipv6 && isLinkLocal
    }
}

extension InterfaceAddress {
    /// Whether the kernel would choose this address as a source at all. IPv6: not
    /// tentative unless optimistic, not DAD-failed (`__ipv6_dev_get_saddr`). IPv4: not
    /// secondary (`inet_select_addr` takes primaries; a secondary has a primary beside it).
    var isSourceCandidate: Bool {
        switch family {
        case .ipv4:
            return !flags.contains(.secondary)
        case .ipv6:
            if flags.contains(.dadFailed) { return false }
            return !flags.contains(.tentative) || flags.contains(.optimistic)
        }
    }

    /// A candidate that also counts (`IPAddress.countsAsSource`), host scope excluded.
    var isUsableSourceCandidate: Bool {
        isSourceCandidate && scope != .host && address.countsAsSource
    }
}

extension Snapshot {
    /// Whether traffic leaving by `interface` on the table entry of its own lookup
    /// (`answer`) would have a source that counts, as the kernel would choose it (see the
    /// rule above). For criteria and `Ignore=`: the source may be any link's address,
    /// ignored or excluded ones included, as it would be.
    func hasSource(family: AddressFamily, leavingBy interface: InterfaceIndex, answer: RouteAnswer) -> Bool {
        if let source = answer.preferredSource { return source.countsAsSource }
        let scope = answer.entry?.scope ?? .universe
        switch family {
        case .ipv4:
            if hasUsableCandidate(on: interface, family: .ipv4, where: { $0.scope.reaches(scope) }) {
                return true
            }
            return addresses.keys.contains { index in
                hasUsableCandidate(on: index, family: .ipv4) { $0.scope != .link && $0.scope.reaches(scope) }
            }
        case .ipv6:
            return addresses.keys.contains { hasUsableCandidate(on: $0, family: .ipv6) }
        }
    }

    /// Whether the link holds an address of its own the kernel would source traffic
    /// from beyond the link: the rule above for the link alone, for the `interfaces`
    /// report and for telling "no address" from "no route". An IPv4 link-scope address
    /// counts where the link's own lookup answers with a link-scope route through it.
    public func hasUsableAddress(_ index: InterfaceIndex, family: AddressFamily) -> Bool {
        switch family {
        case .ipv6:
            return hasUsableCandidate(on: index, family: .ipv6)
        case .ipv4:
            if hasUsableCandidate(on: index, family: .ipv4, where: { $0.scope != .link }) { return true }
            return hasUsableCandidate(on: index, family: .ipv4) && hasLinkScopeRoute(leavingBy: index)
        }
    }

    /// Whether the link holds a usable source candidate of the family that `matches`.
    /// Asked, not listed: a list of them, made at each evaluation, is memory the
    /// change's line waits for.
    private func hasUsableCandidate(on index: InterfaceIndex, family: AddressFamily,
                                    where matches: (InterfaceAddress) -> Bool = { _ in true }) -> Bool {
        addresses[index]?.values.contains { $0.family == family && $0.isUsableSourceCandidate && matches($0) } ?? false
    }

    /// Whether the link's own IPv4 lookup answers with a link-scope route (`default dev
    /// eth0`, no gateway) leaving by it.
    private func hasLinkScopeRoute(leavingBy index: InterfaceIndex) -> Bool {
        guard case .route(let answer)? = interfaceLookups[.ipv4]?[index] else { return false }
        return answer.type == .unicast && answer.entry?.scope == .link && answer.outputInterface == index
    }
}
