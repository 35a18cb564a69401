// SPDX-License-Identifier: Apache-2.0
import PathModel

/// Whether a link can carry traffic, from what the kernel reports about it and, for a
/// bridge, bond or team, about its ports.
///
/// A master carries traffic only through a port, and the kernel's flags for it lag
/// behind that in one case: a bridge that never had a port reports UP, LOWER_UP and
/// operstate UNKNOWN. Its carrier is set only by `br_port_state_selection`
/// (net/bridge/br_stp.c: off when no port forwards), which runs on port changes, so a
/// fresh bridge keeps the carrier every new device starts with. After its last port
/// leaves, the kernel itself reports NO-CARRIER. So a master with no port up has no
/// carrier whatever its own flags say; with one, its own flags decide (the kernel's
/// carrier then follows the ports, STP states included).
extension Snapshot {
    /// The state of `link`: its own flags, overruled to `noCarrier` for a master
    /// (`Link.aggregatesPorts`) none of whose ports (links whose `IFLA_MASTER` names it)
    /// is usable. Costs a pass over the links for a master only.
    public func linkState(of link: Link) -> LinkState {
        Self.state(of: link) { master in links.values.contains { $0.master == master && $0.linkState == .usable } }
    }

    /// Every link's state as `linkState(of:)` gives it, in one pass over the links.
    public func linkStates() -> [InterfaceIndex: LinkState] {
        var mastersWithPortUp: Set<InterfaceIndex> = []
        for link in links.values where link.linkState == .usable {
            if let master = link.master { mastersWithPortUp.insert(master) }
        }
        return links.mapValues { Self.state(of: $0, hasPortUp: mastersWithPortUp.contains) }
    }

    /// The rule both share; `hasPortUp` answers for a master's index.
    private static func state(of link: Link, hasPortUp: (InterfaceIndex) -> Bool) -> LinkState {
        let own = link.linkState
        guard own == .usable, link.aggregatesPorts, !hasPortUp(link.index) else { return own }
        return .noCarrier
    }
}
