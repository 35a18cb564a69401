// SPDX-License-Identifier: Apache-2.0
/// Everything the evaluator needs, and nothing more: links, their addresses, the policy
/// rules, the kernel's route answers (per family, and per family through each link), and
/// DNS. No route at all: the kernel answers for its table, whose size (a full BGP table
/// is about a million routes) would otherwise become the daemon's.
public struct Snapshot: Hashable, Sendable {
    /// The tables, in one copy-on-write box: the evaluation and the tracker copy the
    /// snapshot at every change, and ten tables retained and released one by one, cold,
    /// came before each change's line.
    private struct Parts: Hashable, Sendable {
        var links: [InterfaceIndex: Link] = [:]
        var addresses: [InterfaceIndex: [InterfaceAddress.Key: InterfaceAddress]] = [:]
        var rules: [RoutingRule] = []
        var lookups: [AddressFamily: RouteLookup] = [:]
        var interfaceLookups: [AddressFamily: [InterfaceIndex: RouteLookup]] = [:]
        var dnsConfigured: Bool = false
        var neighbours: [InterfaceIndex: [IPAddress: Neighbour]] = [:]
        var carrierEpochs: [InterfaceIndex: CarrierEpoch] = [:]
        var hints: [InterfaceIndex: NetworkHints] = [:]
        var hintSources: [InterfaceIndex: LinkHintSources] = [:]
    }

    private var parts = CopyOnWrite(Parts())

    public private(set) var links: [InterfaceIndex: Link] {
        _read { yield parts.value.links }
        _modify { yield &parts.value.links }
    }
    public private(set) var addresses: [InterfaceIndex: [InterfaceAddress.Key: InterfaceAddress]] {
        _read { yield parts.value.addresses }
        _modify { yield &parts.value.addresses }
    }
    public private(set) var rules: [RoutingRule] {
        _read { yield parts.value.rules }
        _modify { yield &parts.value.rules }
    }
    public private(set) var lookups: [AddressFamily: RouteLookup] {
        _read { yield parts.value.lookups }
        _modify { yield &parts.value.lookups }
    }
    /// Per family, the kernel's answer through each link it is asked about on its own
    /// (`NetworkEvent.interfaceLookup`, `Link.hasOwnLookups`); a link without one cannot
    /// carry traffic.
    public private(set) var interfaceLookups: [AddressFamily: [InterfaceIndex: RouteLookup]] {
        _read { yield parts.value.interfaceLookups }
        _modify { yield &parts.value.interfaceLookups }
    }
    /// Whether DNS has a server to ask (from the resolv.conf watcher, not the kernel):
    /// kept across a re-dump of the kernel's state (`replaceKernelState`).
    public var dnsConfigured: Bool {
        _read { yield parts.value.dnsConfigured }
        _modify { yield &parts.value.dnsConfigured }
    }
    /// Per link, the neighbour entries of its gateways, by address: all the neighbour
    /// table pathd sees (the event socket's filter passes no other entry).
    public private(set) var neighbours: [InterfaceIndex: [IPAddress: Neighbour]] {
        _read { yield parts.value.neighbours }
        _modify { yield &parts.value.neighbours }
    }
    /// Per link, what pathd saw of its carrier since it started (`CarrierEpoch`): none
    /// for a link whose carrier pathd never saw lost.
    public private(set) var carrierEpochs: [InterfaceIndex: CarrierEpoch] {
        _read { yield parts.value.carrierEpochs }
        _modify { yield &parts.value.carrierEpochs }
    }
    /// Per link, what was learnt of its network without configuration (DHCP, router
    /// advertisements): `hintSources` merged. Not in the kernel's dumps, so kept across
    /// a re-dump like DNS; forgotten with the link, its carrier, and (a lease's) its
    /// address (Snapshot+Hints.swift).
    public internal(set) var hints: [InterfaceIndex: NetworkHints] {
        _read { yield parts.value.hints }
        _modify { yield &parts.value.hints }
    }
    /// Per link, each source of its hints: its DHCP leases, its routers' options.
    public internal(set) var hintSources: [InterfaceIndex: LinkHintSources] {
        _read { yield parts.value.hintSources }
        _modify { yield &parts.value.hintSources }
    }

    public init() {}

    public init(events: [NetworkEvent], dnsConfigured: Bool = false) {
        self.dnsConfigured = dnsConfigured
        for event in events { apply(event) }
    }

    /// Replaces everything the kernel reported with a full dump (a new generation's
    /// first batch); DNS and hints, which the kernel does not report, stay (a link's
    /// hints while the link does). So do carrier epochs, which are pathd's own
    /// observations: a link still there whose carrier-down count is unchanged keeps its
    /// epoch; one whose count grew lost its carrier while nobody listened, before
    /// `readAt`, which becomes its epoch (a loss and a return, settling).
    public mutating func replaceKernelState(with events: [NetworkEvent], readAt: MonotonicInstant? = nil) {
        let previous = self
        self = Snapshot(events: events, dnsConfigured: dnsConfigured)
        keepHints(of: previous)
        for (index, link) in links where carrierEpochs[index] == nil {
            guard let before = previous.links[index], before.name == link.name else { continue }
            if before.carrierDownCount == link.carrierDownCount {
                carrierEpochs[index] = previous.carrierEpochs[index]
            } else if let readAt {
                carrierEpochs[index] = CarrierEpoch(lostAt: readAt, cameBackAt: link.hasCarrier ? readAt : nil,
                                                    isSettling: link.hasCarrier)
            }
        }
    }

    /// The settling time after the carrier came back at `cameBackAt` is over: the link's
    /// network is no longer `pending` (`CarrierEpoch.isSettling`). Nothing when the
    /// carrier came back again since.
    public mutating func endSettling(of index: InterfaceIndex, cameBackAt: MonotonicInstant) {
        guard carrierEpochs[index]?.cameBackAt == cameBackAt else { return }
        carrierEpochs[index]?.isSettling = false
    }

    public mutating func apply(_ event: NetworkEvent) {
        switch event {
        case .linkChanged(let link):
            links[link.index] = link
            // No longer asked about (the monitor's rule, `Link.hasOwnLookups`): its answers go.
            if !link.hasOwnLookups { dropInterfaceLookups(of: link.index) }
        case .linkRemoved(let index):
            links[index] = nil
            addresses[index] = nil
            neighbours[index] = nil
            carrierEpochs[index] = nil
            forgetHints(of: index)
            dropInterfaceLookups(of: index)
        case .addressChanged(let address):
            addresses[address.interface, default: [:]][address.key] = address
        case .addressRemoved(let key):
            addresses[key.interface]?[key] = nil
            if addresses[key.interface]?.isEmpty == true { addresses[key.interface] = nil }
            changeHints(of: key.interface) { $0.addressRemoved(key.address) }
        case .ruleAdded(let rule):
            if !rules.contains(rule) { rules.append(rule) }
        case .ruleRemoved(let rule):
            if let index = rules.firstIndex(of: rule) { rules.remove(at: index) }
        case .routeLookup(let family, let lookup):
            lookups[family] = lookup
        case .interfaceLookup(let family, let index, let lookup):
            interfaceLookups[family, default: [:]][index] = lookup
        case .neighbourChanged(var neighbour):
            // A message the kernel wrote before a newer answer pathd already holds may
            // arrive after it (an answer on the request socket overtakes the event
            // socket's queue): a confirmation of the same address is never taken back.
            if let held = neighbours[neighbour.interface]?[neighbour.address],
               held.linkLayerAddress == neighbour.linkLayerAddress,
               let heldAt = held.confirmedAt, neighbour.confirmedAt.map({ heldAt > $0 }) ?? true {
                neighbour.confirmedAt = heldAt
            }
            neighbours[neighbour.interface, default: [:]][neighbour.address] = neighbour
        case .neighbourRemoved(let key):
            neighbours[key.interface]?[key.address] = nil
            if neighbours[key.interface]?.isEmpty == true { neighbours[key.interface] = nil }
        case .carrierLost(let index, let instant):
            carrierEpochs[index] = CarrierEpoch(lostAt: instant)
            forgetHints(of: index)
        case .carrierRegained(let index, let instant):
            // A link first seen without carrier had its loss recorded then (the monitor
            // says so at first sight); without one, the return is the line.
            let lostAt = carrierEpochs[index]?.lostAt ?? instant
            carrierEpochs[index] = CarrierEpoch(lostAt: lostAt, cameBackAt: instant, isSettling: true)
        case .routerOption(let option):
            guard links[option.interface] != nil else { break }
            changeHints(of: option.interface) { $0.apply(option) }
        }
    }

    private mutating func dropInterfaceLookups(of index: InterfaceIndex) {
        for family in AddressFamily.allCases { interfaceLookups[family]?[index] = nil }
    }

    /// The addresses of one link, in a stable order (family, then address text).
    public func addresses(of index: InterfaceIndex) -> [InterfaceAddress] {
        (addresses[index].map { Array($0.values) } ?? []).sorted {
            ($0.family == .ipv4 ? 0 : 1, $0.address.description) < ($1.family == .ipv4 ? 0 : 1, $1.address.description)
        }
    }

    /// The links in index order.
    public var sortedLinks: [Link] { links.values.sorted { $0.index < $1.index } }

    /// The rules of a family by priority; the boot defaults when none were reported.
    public func rules(for family: AddressFamily) -> [RoutingRule] {
        let reported = rules.filter { $0.family == family }
        return reported.isEmpty ? RoutingRule.defaults(for: family) : reported.sorted { $0.priority < $1.priority }
    }
}
