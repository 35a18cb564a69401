// SPDX-License-Identifier: Apache-2.0
/// Everything the evaluator needs, and nothing more: links, their addresses, the policy
/// rules, the kernel's route answers (per family, and per family through each link), and
/// DNS. No route at all: the kernel answers for its table, whose size (a full BGP table
/// is about a million routes) would otherwise become the daemon's.
public struct Snapshot: Hashable, Sendable {
    public private(set) var links: [InterfaceIndex: Link] = [:]
    public private(set) var addresses: [InterfaceIndex: [InterfaceAddress.Key: InterfaceAddress]] = [:]
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
            // No longer asked about (the monitor's rule, `Link.hasOwnLookups`): its answers go.
            if !link.hasOwnLookups { dropInterfaceLookups(of: link.index) }
        case .linkRemoved(let index):
            links[index] = nil
            addresses[index] = nil
            dropInterfaceLookups(of: index)
        case .addressChanged(let address):
            addresses[address.interface, default: [:]][address.key] = address
        case .addressRemoved(let key):
            addresses[key.interface]?[key] = nil
            if addresses[key.interface]?.isEmpty == true { addresses[key.interface] = nil }
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
