// SPDX-License-Identifier: Apache-2.0
/// The hints' sources in the snapshot (`hintSources`, merged into `hints`): what the
/// daemon records of DHCP leases, what router advertisements bring in (`apply`), and
/// the rules that forget them. A lease comes from outside the kernel, so it is recorded
/// by the daemon, as DNS is; everything else here follows the kernel's events.
extension Snapshot {
    /// Keeps a DHCP lease's facts for the link `index`, replacing its family's lease.
    public mutating func recordLease(_ lease: DHCPLease, on index: InterfaceIndex) {
        changeHints(of: index) { $0.record(lease) }
    }

    /// Forgets the link's lease of `family`; whether there was one.
    @discardableResult
    public mutating func endLease(of family: AddressFamily, on index: InterfaceIndex) -> Bool {
        var ended = false
        changeHints(of: index) { ended = $0.endLease(of: family) }
        return ended
    }

    /// Forgets what routers said that expired at `instant` or before.
    public mutating func expireRouterHints(through instant: MonotonicInstant) {
        for index in hintSources.keys {
            changeHints(of: index) { $0.expireRouterHints(through: instant) }
        }
    }

    /// When the first thing a router said expires, on any link; nil when nothing does.
    public var nextRouterHintExpiry: MonotonicInstant? {
        hintSources.values.compactMap(\.nextExpiry).min()
    }

    /// Changes the sources of one link's hints and merges them again.
    mutating func changeHints(of index: InterfaceIndex, _ change: (inout LinkHintSources) -> Void) {
        var sources = hintSources[index] ?? LinkHintSources()
        change(&sources)
        setHintSources(sources, of: index)
    }

    /// Forgets every hint of the link: it lost its carrier, or is gone. A network met
    /// after the carrier returns tells its own.
    mutating func forgetHints(of index: InterfaceIndex) {
        hintSources[index] = nil
        hints[index] = nil
    }

    /// After a re-dump (`replaceKernelState`), the hints of `previous` that still hold:
    /// those of a link that is still there under its name, has carrier, and did not lose
    /// it meanwhile (its carrier-down count is unchanged), without the leases of
    /// addresses it no longer has.
    mutating func keepHints(of previous: Snapshot) {
        for (index, sources) in previous.hintSources {
            guard let link = links[index], let before = previous.links[index], before.name == link.name,
                  link.hasCarrier, before.carrierDownCount == link.carrierDownCount else { continue }
            var kept = sources
            kept.keepLeases(onAddresses: Set(addresses(of: index).map(\.address)))
            setHintSources(kept, of: index)
        }
    }

    private mutating func setHintSources(_ sources: LinkHintSources, of index: InterfaceIndex) {
        guard !sources.isEmpty else {
            forgetHints(of: index)
            return
        }
        hintSources[index] = sources
        hints[index] = sources.merged
    }
}
