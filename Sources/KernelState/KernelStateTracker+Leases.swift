// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel

/// DHCP leases in the kernel's state: the one input of the snapshot's hints that does
/// not come from the kernel (a DHCP client's hook, through the daemon's `reportLease`).
extension KernelStateTracker {
    /// What became of a lease report.
    public enum LeaseOutcome: Hashable, Sendable {
        /// The lease's facts are kept for `link`.
        case recorded(Link)
        /// The lease ended; whether the link held it (not when the link, its carrier or
        /// the leased address went first, which forgot it).
        case ended(forgotten: Bool)
        /// Not recorded, and why (for a `badArgument` reply).
        case refused(String)
    }

    /// Takes what a DHCP client's hook said of a lease on the link `zone` (a name, or an
    /// index in decimal). A bound lease is refused for a link that is gone or has no
    /// carrier: its facts would describe a network the link is not on (the hook ran
    /// late, or for a link that went away meanwhile), and a link's hints are forgotten
    /// with its carrier anyway. An end is never refused: what it asks to forget is
    /// forgotten already when the link is gone.
    public func report(_ report: LeaseReport, onLink zone: String) -> LeaseOutcome {
        dispatchPrecondition(condition: .onQueue(queue))
        let link = snapshot.link(zone: zone)
        switch report {
        case .ended(let family):
            return .ended(forgotten: link.map { endLease(of: family, on: $0.index) } ?? false)
        case .bound(let lease):
            guard let link else {
                return .refused("no interface \"\(zone)\" (it is gone?); the lease is not recorded")
            }
            guard link.hasCarrier else {
                return .refused("\(link.name) has no carrier; a lease on it is not recorded")
            }
            recordLease(lease, on: link.index)
            return .recorded(link)
        }
    }
}
