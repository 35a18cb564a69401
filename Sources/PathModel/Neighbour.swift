// SPDX-License-Identifier: Apache-2.0
/// A moment on CLOCK_MONOTONIC (since boot, suspend excluded): the clock the kernel's
/// neighbour ages run on (jiffies, which stop during suspend too), so that a neighbour's
/// confirmation (`Neighbour.confirmedAt`) and a link's carrier loss (`CarrierEpoch`) are
/// compared on one clock. Comparable within one boot only.
public struct MonotonicInstant: Hashable, Sendable, Comparable {
    public var sinceBoot: Duration

    public init(sinceBoot: Duration) {
        self.sinceBoot = sinceBoot
    }

    public static func < (left: MonotonicInstant, right: MonotonicInstant) -> Bool { left.sinceBoot < right.sinceBoot }

    public static func + (instant: MonotonicInstant, span: Duration) -> MonotonicInstant {
        MonotonicInstant(sinceBoot: instant.sinceBoot + span)
    }

    public static func - (instant: MonotonicInstant, span: Duration) -> MonotonicInstant {
        MonotonicInstant(sinceBoot: instant.sinceBoot - span)
    }
}

/// A neighbour entry's state (`ndm_state`, `NUD_*` in `<linux/neighbour.h>`).
public struct NeighbourState: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Resolution under way (an ARP request or neighbour solicitation is out).
    public static let incomplete = NeighbourState(rawValue: 0x01)
    /// Confirmed within the last reachable time.
    public static let reachable = NeighbourState(rawValue: 0x02)
    /// Not confirmed lately; still used, and confirmed at the next use.
    public static let stale = NeighbourState(rawValue: 0x04)
    /// Used while stale; a probe follows unless something confirms it.
    public static let delay = NeighbourState(rawValue: 0x08)
    /// Being probed by unicast.
    public static let probe = NeighbourState(rawValue: 0x10)
    /// Resolution failed.
    public static let failed = NeighbourState(rawValue: 0x20)
    /// No resolution needed (point-to-point, multicast).
    public static let noARP = NeighbourState(rawValue: 0x40)
    /// Set by an administrator; never expires.
    public static let permanent = NeighbourState(rawValue: 0x80)

    /// NUD_VALID: the kernel sends to the entry's link-layer address.
    public static let valid: NeighbourState = [.permanent, .noARP, .reachable, .probe, .stale, .delay]
}

/// One entry of the kernel's neighbour table (ARP for IPv4, NDP for IPv6), as
/// RTM_NEWNEIGH describes it. pathd only ever sees the entries of gateways (the event
/// socket's filter, docs/ARCHITECTURE.md, "Network identity").
public struct Neighbour: Hashable, Sendable {
    /// An entry is one address on one link.
    public struct Key: Hashable, Sendable, Comparable {
        public var interface: InterfaceIndex
        public var address: IPAddress

        public init(interface: InterfaceIndex, address: IPAddress) {
            self.interface = interface
            self.address = address
        }

        /// By link, then IPv4 before IPv6, then by address.
        public static func < (left: Key, right: Key) -> Bool {
            if left.interface != right.interface { return left.interface < right.interface }
            let (leftBytes, rightBytes) = (left.address.bytes, right.address.bytes)
            if leftBytes.count != rightBytes.count { return leftBytes.count < rightBytes.count }
            return leftBytes.lexicographicallyPrecedes(rightBytes)
        }
    }

    public var interface: InterfaceIndex
    public var address: IPAddress
    /// NDA_LLADDR; nil while unresolved (INCOMPLETE, FAILED).
    public var linkLayerAddress: LinkLayerAddress?
    public var state: NeighbourState
    /// NTF_ROUTER: the neighbour said it is a router (IPv6 router advertisements).
    public var isRouter: Bool
    /// When the kernel last confirmed the entry: the time it was read less its
    /// `ndm_confirmed` age (NDA_CACHEINFO, in USER_HZ ticks); nil when the message had
    /// no age. Never later than the truth, so a comparison with a carrier loss errs
    /// toward "not confirmed since".
    public var confirmedAt: MonotonicInstant?

    public init(interface: InterfaceIndex, address: IPAddress, linkLayerAddress: LinkLayerAddress?,
                state: NeighbourState, isRouter: Bool = false, confirmedAt: MonotonicInstant? = nil) {
        self.interface = interface
        self.address = address
        self.linkLayerAddress = linkLayerAddress
        self.state = state
        self.isRouter = isRouter
        self.confirmedAt = confirmedAt
    }

    public var key: Key { Key(interface: interface, address: address) }

    /// The link-layer address the kernel sends the address's traffic to now: one it
    /// holds in a valid state (NUD_VALID), else nil.
    public var resolvedAddress: LinkLayerAddress? {
        state.isDisjoint(with: .valid) ? nil : linkLayerAddress
    }

    /// Whether the entry was confirmed on the link's current carrier: after the last
    /// carrier loss pathd saw (`epoch`), or at any time when pathd saw none (a link
    /// whose carrier came up before pathd started). Nothing is received without a
    /// carrier, so a confirmation after the loss was seen is one from the network the
    /// link is on now; an entry the kernel kept across the loss
    /// (`arp_evict_nocarrier=0`) is not, however REACHABLE it says it is.
    public func isConfirmed(since epoch: CarrierEpoch?) -> Bool {
        guard resolvedAddress != nil else { return false }
        guard let epoch else { return true }
        guard let confirmedAt else { return false }
        return confirmedAt > epoch.lostAt
    }
}

/// What pathd saw of a link's carrier, for network identity: when it last saw the carrier
/// lost, and when it came back. Kept per link in the snapshot (`Snapshot.carrierEpochs`).
public struct CarrierEpoch: Hashable, Sendable {
    /// How long after the carrier came back a link whose gateway is not confirmed yet is
    /// `pending` rather than `unidentified`: DHCP and the first packet's ARP or
    /// neighbour solicitation take a few seconds on a real network.
    public static let settlingTime = Duration.seconds(10)

    /// When pathd learnt that the carrier was lost (the link message that said so, or the
    /// one whose carrier-down count had grown): a confirmation after it is a
    /// confirmation on the present carrier.
    public var lostAt: MonotonicInstant
    /// When pathd learnt that the carrier was back; nil while it is not.
    public var cameBackAt: MonotonicInstant?
    /// From `cameBackAt` until `settlingTime` later: the link's network is `pending`
    /// while no gateway is confirmed. Cleared by `KernelStateTracker`'s timer
    /// (`Snapshot.endSettling`), so that evaluating a snapshot needs no clock.
    public var isSettling: Bool

    public init(lostAt: MonotonicInstant, cameBackAt: MonotonicInstant? = nil, isSettling: Bool = false) {
        self.lostAt = lostAt
        self.cameBackAt = cameBackAt
        self.isSettling = isSettling
    }
}
