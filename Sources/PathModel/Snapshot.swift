/// Everything the evaluator needs, and nothing more: links, their addresses, the
/// short-prefix routes and the policy rules, the kernel's route answer per family, and
/// DNS. Never the whole routing table: its size would become the daemon's size (a
/// full BGP table is about a million routes).
public struct Snapshot: Hashable, Sendable {
    public private(set) var links: [InterfaceIndex: Link] = [:]
    public private(set) var addresses: [InterfaceIndex: [InterfaceAddress.Key: InterfaceAddress]] = [:]
    /// Short-prefix routes by what the kernel identifies them by; several may share an
    /// identity (`ip route append`).
    public private(set) var routes: [TrackedRoute.Identity: [TrackedRoute]] = [:]
    public private(set) var rules: [RoutingRule] = []
    public private(set) var lookups: [AddressFamily: RouteLookup] = [:]
    /// Per family, the kernel's answer through each link it is asked about on its own
    /// (`NetworkEvent.interfaceLookup`, `Link.hasOwnLookups`); a link without one cannot
    /// carry traffic.
    public private(set) var interfaceLookups: [AddressFamily: [InterfaceIndex: RouteLookup]] = [:]
    /// Whether DNS has a server to ask (from the resolv.conf watcher, not the kernel):
    /// kept across a re-dump of the kernel's state (`replaceKernelState`).
    public var dnsConfigured = false

    public init() {}

    public init(events: [NetworkEvent], dnsConfigured: Bool = false) {
        self.dnsConfigured = dnsConfigured
        for event in events { apply(event) }
    }

    /// Replaces everything the kernel reported with a full dump (a new generation's
    /// first batch); DNS, which the kernel does not report, stays.
    public mutating func replaceKernelState(with events: [NetworkEvent]) {
        self = Snapshot(events: events, dnsConfigured: dnsConfigured)
    }

    public mutating func apply(_ event: NetworkEvent) {
        switch event {
        case .linkChanged(let link):
            links[link.index] = link
            // Admin down flushes the link's IPv4 routes with no RTM_DELROUTE (docs/ARCHITECTURE.md,
            // "Toolchain and kernel facts"; net/ipv4/fib_frontend.c fib_disable_ip). Do the same.
            if !link.flags.contains(.up) { dropNexthops(on: link.index, families: [.ipv4]) }
            // No longer asked about (the monitor's rule, `Link.hasOwnLookups`): its answers go.
            if !link.hasOwnLookups { dropInterfaceLookups(of: link.index) }
        case .linkRemoved(let index):
            links[index] = nil
            addresses[index] = nil
            dropNexthops(on: index, families: [.ipv4, .ipv6])
            dropInterfaceLookups(of: index)
        case .addressChanged(let address):
            addresses[address.interface, default: [:]][address.key] = address
        case .addressRemoved(let key):
            addresses[key.interface]?[key] = nil
            if addresses[key.interface]?.isEmpty == true { addresses[key.interface] = nil }
        case .routeChanged(let route, let replaces):
            if replaces { routes[route.identity] = nil }
            var same = routes[route.identity] ?? []
            if !same.contains(route) { same.append(route) }
            routes[route.identity] = same
        case .routeRemoved(let route):
            removeRoute(route)
        case .ruleAdded(let rule):
            if !rules.contains(rule) { rules.append(rule) }
        case .ruleRemoved(let rule):
            if let index = rules.firstIndex(of: rule) { rules.remove(at: index) }
        case .routeLookup(let family, let lookup):
            lookups[family] = lookup
        case .interfaceLookup(let family, let index, let lookup):
            interfaceLookups[family, default: [:]][index] = lookup
        }
    }

    /// A deleted route is matched exactly first; else, among the routes of its identity,
    /// the ones sharing a nexthop interface (a multipath route losing a hop), else the
    /// only one.
    private mutating func removeRoute(_ route: TrackedRoute) {
        guard var same = routes[route.identity] else { return }
        if let exact = same.firstIndex(of: route) {
            same.remove(at: exact)
        } else {
            let interfaces = Set(route.nexthops.map(\.interface))
            let sharing = same.filter { !Set($0.nexthops.map(\.interface)).isDisjoint(with: interfaces) }
            if !sharing.isEmpty {
                same.removeAll { sharing.contains($0) }
            } else if same.count == 1 {
                same.removeAll()
            }
        }
        routes[route.identity] = same.isEmpty ? nil : same
    }

    private mutating func dropNexthops(on index: InterfaceIndex, families: Set<AddressFamily>) {
        for (identity, same) in routes where families.contains(identity.family) {
            var kept: [TrackedRoute] = []
            for var route in same {
                guard !route.nexthops.isEmpty else {
                    kept.append(route)  // a rejecting route has no interface to lose
                    continue
                }
                route.nexthops.removeAll { $0.interface == index }
                if !route.nexthops.isEmpty { kept.append(route) }
            }
            routes[identity] = kept.isEmpty ? nil : kept
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

    /// The tracked routes of a family in one table.
    public func routes(family: AddressFamily, table: UInt32) -> [TrackedRoute] {
        routes.values.flatMap { $0 }.filter { $0.family == family && $0.table == table }
    }

    /// The rules of a family by priority; the boot defaults when none were reported.
    public func rules(for family: AddressFamily) -> [RoutingRule] {
        let reported = rules.filter { $0.family == family }
        return reported.isEmpty ? RoutingRule.defaults(for: family) : reported.sorted { $0.priority < $1.priority }
    }
}
