// SPDX-License-Identifier: Apache-2.0
/// One decoded fact from the kernel (or from a fake source in tests). Link and address
/// messages carry the whole object, so replaying them in order converges on the
/// kernel's state even when they overlap a dump.
public enum NetworkEvent: Hashable, Sendable {
    /// RTM_NEWLINK: the link exists and looks like this.
    case linkChanged(Link)
    /// RTM_DELLINK.
    case linkRemoved(InterfaceIndex)
    /// RTM_NEWADDR.
    case addressChanged(InterfaceAddress)
    /// RTM_DELADDR.
    case addressRemoved(InterfaceAddress.Key)
    /// RTM_NEWRULE.
    case ruleAdded(RoutingRule)
    /// RTM_DELRULE.
    case ruleRemoved(RoutingRule)
    /// RTM_NEWNEIGH of a gateway (the only neighbours the event socket's filter lets
    /// through), or the answer to asking the kernel about one (RTM_GETNEIGH).
    case neighbourChanged(Neighbour)
    /// RTM_DELNEIGH, or a gateway the kernel has no entry for.
    case neighbourRemoved(Neighbour.Key)
    /// A link message showed the carrier lost (IFF_RUNNING gone, or a carrier-down count
    /// grown since the last message), read at that instant: the freshness line of the
    /// link's neighbours (`CarrierEpoch`).
    case carrierLost(InterfaceIndex, at: MonotonicInstant)
    /// A link message showed the carrier back (IFF_RUNNING set again), read at that instant.
    case carrierRegained(InterfaceIndex, at: MonotonicInstant)
    /// An option of a router advertisement the kernel passed on (RTM_NEWNDUSEROPT) that
    /// hints at the network: a DNS search list, a captive portal.
    case routerOption(RouterOption)
    /// The kernel's answer to "which route for the lookup destination" for one family,
    /// asked after a batch of messages drained.
    case routeLookup(AddressFamily, RouteLookup)
    /// The kernel's answer for the same destination through one interface
    /// (`Link.hasOwnLookups`), asked with RTA_OIF and RTM_F_FIB_MATCH right after
    /// `routeLookup`: what a program bound to that interface would get.
    case interfaceLookup(AddressFamily, InterfaceIndex, RouteLookup)
}

/// A drained batch of events from one monitor instance.
public struct EventBatch: Hashable, Sendable {
    /// The instance that produced the batch; stale ones are dropped on the state queue.
    public var generation: Generation
    /// True when the batch is a complete dump: the snapshot is rebuilt from it alone.
    public var isFullState: Bool
    public var events: [NetworkEvent]
    /// When the source read the batch's last message: a full state's links whose carrier
    /// was lost while nobody listened (their carrier-down count grew) lost it before this
    /// (`Snapshot.replaceKernelState`). Nil from a source that does not say, and for a
    /// batch of changes, which nothing reads it of.
    public var readAt: MonotonicInstant?

    public init(generation: Generation, isFullState: Bool, events: [NetworkEvent], readAt: MonotonicInstant? = nil) {
        self.generation = generation
        self.isFullState = isFullState
        self.events = events
        self.readAt = readAt
    }
}
