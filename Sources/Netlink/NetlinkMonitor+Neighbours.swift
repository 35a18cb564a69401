// SPDX-License-Identifier: Apache-2.0
import CLinux
import Dispatch
import PathModel
import SystemCalls

/// What a monitor keeps to follow the gateways' neighbour entries (docs/ARCHITECTURE.md,
/// "Network identity"): the carrier each link's last message showed, the gateway of each
/// link's own routes, and whether the kernel refused to resolve. Used on the monitor's
/// queue only.
struct NeighbourWatch {
    /// What a link message said of the carrier.
    struct Carrier: Equatable {
        var hasCarrier: Bool
        var downCount: UInt32?
    }

    /// One link's gateway of one family: the gateway of the link's own route
    /// (`NetworkEvent.interfaceLookup`).
    struct Gateway: Equatable {
        var family: AddressFamily
        var key: Neighbour.Key
    }

    private(set) var carrier: [InterfaceIndex: Carrier] = [:]
    /// The links' gateways, one per link and family at most. A list: a host has a few,
    /// and each route change's batch looks them up before its line, which a dictionary
    /// of dictionaries (hashing, and a table built and freed as a link's last gateway
    /// went and came back) made wait longer than the rest of the batch's bookkeeping.
    private(set) var gateways: [Gateway] = []
    /// The kernel refused a resolution (no CAP_NET_ADMIN): this monitor asks no more.
    var isResolutionRefused = false
    /// Whether the gateways changed since the filter was attached (`takeFollowUp`), and
    /// those whose entries a batch read before the filter passed their messages.
    private var isFilterStale = false
    private var toReadAgain: Set<Neighbour.Key> = []

    /// The gateways the attached filter passes (`NetlinkMonitor.attachRouteFilter`): the
    /// present ones and up to `formerGatewaysKept` that went since. A default route
    /// deleted and added back (a DHCP renewal, a VPN reconnecting, a flapping uplink)
    /// then needs no new program: the kernel checks each one, hundreds of instructions,
    /// in about 0.2 ms of pathd's CPU, four times what the rest of a route change costs.
    var filtered: Set<Neighbour.Key> = []
    static let formerGatewaysKept = 4

    /// Every gateway, as the filter passes their entries.
    var keys: Set<Neighbour.Key> { Set(gateways.map(\.key)) }

    /// Whether the filter must be attached again: it does not pass a present gateway's
    /// entries, or it passes more former gateways' than are kept.
    var needsNewFilter: Bool {
        gateways.contains { !filtered.contains($0.key) } || filtered.count > gateways.count + Self.formerGatewaysKept
    }

    /// Whether `event` is for the snapshot: a neighbour message only when it is about a
    /// present gateway or a former one the filter still passes, whose entry the snapshot
    /// keeps current for its return (past `NeighbourFilter.maximumGateways` the filter
    /// passes every entry of their links); any other event.
    func concerns(_ event: NetworkEvent) -> Bool {
        switch event {
        case .neighbourChanged(let neighbour): isFollowed(neighbour.key)
        case .neighbourRemoved(let key): isFollowed(key)
        default: true
        }
    }

    private func isFollowed(_ key: Neighbour.Key) -> Bool {
        filtered.contains(key) || gateways.contains { $0.key == key }
    }

    /// The carrier events a link message means, read at `instant`: a loss when the
    /// carrier went (or the link is first seen without one: a confirmation from before
    /// is not of the present carrier), or when the carrier-down count grew (a loss and a
    /// return the kernel reported in one message); a return when it came back. Nothing
    /// for a link first seen with carrier: pathd did not see it come up.
    mutating func carrierEvents(of link: Link, at instant: MonotonicInstant) -> [NetworkEvent] {
        let now = Carrier(hasCarrier: link.hasCarrier, downCount: link.carrierDownCount)
        let before = carrier.updateValue(now, forKey: link.index)
        guard let before else { return now.hasCarrier ? [] : [.carrierLost(link.index, at: instant)] }
        let lostMeanwhile = (now.downCount ?? 0) > (before.downCount ?? 0)
        var events: [NetworkEvent] = []
        if (before.hasCarrier && !now.hasCarrier) || lostMeanwhile {
            events.append(.carrierLost(link.index, at: instant))
        }
        if now.hasCarrier && (!before.hasCarrier || lostMeanwhile) {
            events.append(.carrierRegained(link.index, at: instant))
        }
        return events
    }

    mutating func forget(_ index: InterfaceIndex) {
        carrier[index] = nil
        gateways.removeAll { $0.key.interface == index }
    }

    /// Takes the gateways of a batch's interface lookups, and drops those of links no
    /// longer asked about (`asked`); returns the gateways that are new and those that
    /// are gone, each sorted. When any changed and the filter does not pass them
    /// (`needsNewFilter`), it is stale, and the new ones it did not pass are to be read
    /// again once it passes them (`takeFollowUp`).
    mutating func noteGateways(in events: [NetworkEvent],
                               asked: Set<InterfaceIndex>) -> (added: [Neighbour.Key], removed: [Neighbour.Key]) {
        // Gathered as the list changes, not by comparing it with a copy made before: the
        // copy would make the first change copy the whole list, before the line.
        var added: [Neighbour.Key] = []
        var removed: [Neighbour.Key] = []
        for case .interfaceLookup(let family, let index, let lookup) in events {
            var gateway: IPAddress?
            if case .route(let answer) = lookup, answer.outputInterface == index, let address = answer.gateway,
               address.family == family {
                gateway = address
            }
            let slot = gateways.firstIndex { $0.key.interface == index && $0.family == family }
            switch (slot, gateway) {
            case (let slot?, let gateway?) where gateways[slot].key.address != gateway:
                removed.append(gateways[slot].key)
                gateways[slot].key.address = gateway
                added.append(gateways[slot].key)
            case (let slot?, nil):
                removed.append(gateways.remove(at: slot).key)
            case (nil, let gateway?):
                let key = Neighbour.Key(interface: index, address: gateway)
                gateways.append(Gateway(family: family, key: key))
                added.append(key)
            default:
                break
            }
        }
        // Checked first: `removeAll` copies a list shared elsewhere even when it removes nothing.
        if gateways.contains(where: { !asked.contains($0.key.interface) }) {
            removed += gateways.filter { !asked.contains($0.key.interface) }.map(\.key)
            gateways.removeAll { !asked.contains($0.key.interface) }
        }
        // The net change: a batch may ask about a link more than once, and a gateway
        // replaced and put back is neither added nor removed. A key is one link's and one
        // family's, so each cancels against itself only.
        var position = 0
        while position < added.count {
            if let match = removed.firstIndex(of: added[position]) {
                removed.remove(at: match)
                added.remove(at: position)
            } else {
                position += 1
            }
        }
        guard !added.isEmpty || !removed.isEmpty else { return ([], []) }
        added.sort()
        removed.sort()
        if needsNewFilter {
            isFilterStale = true
            toReadAgain.formUnion(added.filter { !filtered.contains($0) })
        }
        return (added, removed)
    }

    /// After a batch whose gateways changed was delivered: nil while the filter passes
    /// the current gateways; else the filter is to be attached again and these entries
    /// read again (the gateways added since, those that still are), and nothing more is
    /// due until the gateways change again.
    mutating func takeFollowUp() -> [Neighbour.Key]? {
        guard isFilterStale else { return nil }
        isFilterStale = false
        defer { toReadAgain = [] }
        return toReadAgain.intersection(keys).sorted()
    }
}

extension NetlinkMonitor {
    /// The time now on CLOCK_MONOTONIC, the clock of the kernel's neighbour ages.
    static func now() -> MonotonicInstant {
        MonotonicInstant(sinceBoot: .nanoseconds(SystemClock.monotonicNanoseconds))
    }

    /// What a decoded event means beyond itself: a link message's carrier events.
    func observed(_ event: NetworkEvent) -> [NetworkEvent] {
        switch event {
        case .linkChanged(let link):
            return neighbourWatch.carrierEvents(of: link, at: Self.now())
        case .linkRemoved(let index):
            neighbourWatch.forget(index)
            return []
        default:
            return []
        }
    }

    /// After a batch's lookups (`events`): when the gateways changed, the filter passes
    /// the new set's entries from now on, the kernel is asked for the new gateways'
    /// entries as they are (a filter passes only later messages), and the gone ones are
    /// forgotten.
    func gatewayEvents(after events: [NetworkEvent]) throws(NetlinkError) -> [NetworkEvent] {
        // The filter is attached after the batch is delivered (`followGateways`): the
        // kernel checks a program of hundreds of instructions in about 0.3 ms, which the
        // path's line must not wait for. A gateway the filter still passes (one that went
        // and came back) needs neither a new program nor a second read: a former gateway
        // the filter still passes keeps its entry, current, so its return needs no read
        // before the line.
        let followed = neighbourWatch.filtered
        let (added, removed) = neighbourWatch.noteGateways(in: events, asked: staleness.lookupInterfaces)
        guard !added.isEmpty || !removed.isEmpty else { return [] }
        return removed.filter { !followed.contains($0) }.map { .neighbourRemoved($0) }
            + (try readNeighbours(added.filter { !followed.contains($0) }))
    }

    /// After a batch whose gateways changed was delivered: the filter passes the new
    /// gateways' entries from now on, and their entries are read again, since a message
    /// about them between the batch's read and the new filter did not pass; a batch of
    /// what was read, nil when nothing is due (or the monitor failed).
    func followGateways() -> EventBatch? {
        guard case .running = state, let again = neighbourWatch.takeFollowUp() else { return nil }
        let followed = neighbourWatch.filtered
        if let eventSocket { attachRouteFilter(to: eventSocket) }
        // Former gateways the new filter no longer passes: their entries would go stale.
        let dropped = followed.subtracting(neighbourWatch.filtered).sorted().map { NetworkEvent.neighbourRemoved($0) }
        guard !again.isEmpty || !dropped.isEmpty else { return nil }
        do throws(NetlinkError) {
            pending += try dropped + readNeighbours(again)
            return try takeBatch(isFullState: false)
        } catch {
            fail(.failure(error.description))
            return nil
        }
    }

    /// The entries of `gateways` as the kernel holds them now (RTM_GETNEIGH): an entry's
    /// change, or its absence.
    private func readNeighbours(_ gateways: [Neighbour.Key]) throws(NetlinkError) -> [NetworkEvent] {
        // Most often none: a gateway that went and came back is still followed.
        guard !gateways.isEmpty else { return [] }
        guard let socket = requestSocket else {
            throw NetlinkError(operation: "neighbour request", code: .protocolViolation("request socket is closed"))
        }
        let answers = try NeighbourRequest.perform(gateways.map { NeighbourRequest(gateway: $0, kind: .read) },
                                                   on: socket, buffer: buffer, clock: Self.now)
        return zip(gateways, answers).compactMap { gateway, answer in
            switch answer {
            case .entry(.changed(let neighbour)): .neighbourChanged(neighbour)
            case .entry(.removed(let key)): .neighbourRemoved(key)
            case .none: .neighbourRemoved(gateway)
            case .done, .refused: nil
            }
        }
    }

    /// Asks the kernel again about gateways whose entries do not name their network yet
    /// (`PathEventSource.refreshNeighbours`): with `ResolveGateways=`, first asks it to
    /// confirm them as a first packet would (a probe of the address it holds, else a
    /// resolution; none while one runs), then reads them, and has the reader thread
    /// deliver what it read (`nudge`). A confirmation by traffic updates an entry without
    /// any message, so the read is what sees it. Delivered by the reader, after what it
    /// read before and with nothing overtaking it: a batch this queue delivered itself could
    /// overtake an older one the reader had taken but not yet delivered, and an older
    /// entry would then replace the newer one.
    public func refreshNeighbours(_ gateways: [Neighbour.Key]) {
        queue.async { [self] in
            guard case .running(let reader) = state, !gateways.isEmpty else { return }
            let watched = neighbourWatch.keys
            let asked = gateways.filter(watched.contains)
            guard !asked.isEmpty else { return }
            do throws(NetlinkError) {
                var events = try readNeighbours(asked)
                if configuration.resolvesGateways && !neighbourWatch.isResolutionRefused {
                    try resolve(asked, as: events)
                    events = try readNeighbours(asked)
                }
                pending += events
                reader.nudge()
            } catch {
                fail(.failure(error.description))
            }
        }
    }

    /// Asks the kernel to confirm each gateway as it stands in `entries`: a probe of an
    /// address it holds, a resolution of one it does not. Logs once, and stops, when the
    /// kernel refuses (CAP_NET_ADMIN).
    private func resolve(_ gateways: [Neighbour.Key], as entries: [NetworkEvent]) throws(NetlinkError) {
        guard let socket = requestSocket else { return }
        var held: [Neighbour.Key: NeighbourState] = [:]
        for case .neighbourChanged(let neighbour) in entries { held[neighbour.key] = neighbour.state }
        let requests = gateways.compactMap { gateway -> NeighbourRequest? in
            let state = held[gateway] ?? .failed
            if !state.isDisjoint(with: [.reachable, .stale, .delay]) {
                return NeighbourRequest(gateway: gateway, kind: .probe)
            }
            if !state.isDisjoint(with: [.failed]) { return NeighbourRequest(gateway: gateway, kind: .resolve) }
            return nil  // a resolution or probe runs, or the entry is permanent
        }
        let answers = try NeighbourRequest.perform(requests, on: socket, buffer: buffer, clock: Self.now)
        for case .refused(let code) in answers {
            neighbourWatch.isResolutionRefused = true
            log(code == EPERM ? .info : .warning,
                "netlink: the kernel refuses to resolve gateways (ResolveGateways=): \(Errno(rawValue: code)); "
                    + "traffic confirms them instead (CAP_NET_ADMIN is needed, docs in pathd.conf(5))")
            return
        }
    }
}
