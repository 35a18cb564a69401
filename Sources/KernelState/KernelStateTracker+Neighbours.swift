// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PathModel

/// Network identity's two timers, on the tracker's queue (docs/ARCHITECTURE.md,
/// "Network identity"): the end of a link's settling time, which the snapshot records
/// so that evaluating it needs no clock, and the questions to the source about gateways
/// whose entries do not name their network yet.
extension KernelStateTracker {
    /// How often unconfirmed gateways are asked about while their link settles, and after.
    static let refreshWhileSettling = Duration.seconds(1)
    static let refreshAfterSettling = Duration.seconds(30)

    /// After a batch (or a timer) changed the snapshot: a settling timer for each carrier
    /// that came back since `epochsBefore`, and the next question about unconfirmed
    /// gateways (at once when they just became unconfirmed, or their entries went:
    /// `removedEntries`, `Snapshot.entriesRemoved(by:)`).
    func followNeighbours(epochsBefore: [InterfaceIndex: CarrierEpoch], removedEntries: Set<Neighbour.Key>) {
        dispatchPrecondition(condition: .onQueue(queue))
        for (index, epoch) in snapshot.carrierEpochs where epoch.isSettling {
            guard let cameBack = epoch.cameBackAt, epochsBefore[index]?.cameBackAt != cameBack else { continue }
            scheduler.schedule(after: CarrierEpoch.settlingTime, on: queue) { [weak self] in
                self?.endSettling(of: index, cameBackAt: cameBack)
            }
        }
        scheduleNeighbourRefresh(removedEntries: removedEntries)
    }

    private func endSettling(of index: InterfaceIndex, cameBackAt: MonotonicInstant) {
        guard isRunning, snapshot.carrierEpochs[index]?.cameBackAt == cameBackAt,
              snapshot.carrierEpochs[index]?.isSettling == true else { return }
        updateSnapshot { $0.endSettling(of: index, cameBackAt: cameBackAt) }
    }

    /// Schedules the next question about `Snapshot.unconfirmedGateways`: at once when one
    /// of them was not unconfirmed at the last look (a carrier came back, a gateway
    /// changed, its entry went) or its entry went since (`removedEntries`: one pathd had
    /// asked the kernel to resolve, taken by a flush), even while another link's gateway
    /// stays unconfirmed for good; else after `refreshWhileSettling` while one of their
    /// links settles, `refreshAfterSettling` otherwise. A question already due sooner
    /// stands; one due later is replaced (its timer finds its token stale), so that a
    /// carrier coming back is not left to wait for the 30 s question scheduled before.
    func scheduleNeighbourRefresh(removedEntries: Set<Neighbour.Key> = []) {
        let gateways = snapshot.unconfirmedGateways
        let before = unconfirmedBefore
        unconfirmedBefore = Set(gateways)
        guard !gateways.isEmpty else { return }
        let settling = gateways.contains { snapshot.carrierEpochs[$0.interface]?.isSettling == true }
        let changed = !unconfirmedBefore.isSubset(of: before) || !removedEntries.isDisjoint(with: unconfirmedBefore)
        let delay: Duration = changed ? .zero : settling ? Self.refreshWhileSettling : Self.refreshAfterSettling
        let due = scheduler.now() + delay
        if let scheduled = neighbourRefresh?.due, scheduled <= due { return }
        neighbourRefreshTokens &+= 1
        let token = neighbourRefreshTokens
        neighbourRefresh = (due, token)
        scheduler.schedule(after: delay, on: queue) { [weak self] in
            guard let self, neighbourRefresh?.token == token else { return }
            neighbourRefresh = nil
            guard isRunning else { return }
            let now = snapshot.unconfirmedGateways
            guard !now.isEmpty else { return }
            askSource { $0.refreshNeighbours(now) }
            scheduleNeighbourRefresh()
        }
    }
}
