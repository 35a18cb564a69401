/// Everything the evaluator needs, and nothing more: links, their addresses, the
/// kernel's route answer per family, and DNS. Never the routing table: its size would
/// become the daemon's size (a full BGP table is about a million routes).
public struct Snapshot: Hashable, Sendable {
    public private(set) var links: [InterfaceIndex: Link] = [:]
    public private(set) var addresses: [InterfaceIndex: [InterfaceAddress.Key: InterfaceAddress]] = [:]
    public private(set) var lookups: [AddressFamily: RouteLookup] = [:]
    public private(set) var dnsConfigured = false

    public init() {}

    public init(events: [NetworkEvent]) {
        for event in events { apply(event) }
    }

    public mutating func apply(_ event: NetworkEvent) {
        switch event {
        case .linkChanged(let link):
            links[link.index] = link
        case .linkRemoved(let index):
            links[index] = nil
            addresses[index] = nil
        case .addressChanged(let address):
            addresses[address.interface, default: [:]][address.key] = address
        case .addressRemoved(let key):
            addresses[key.interface]?[key] = nil
            if addresses[key.interface]?.isEmpty == true { addresses[key.interface] = nil }
        case .routeLookup(let family, let lookup):
            lookups[family] = lookup
        case .dnsConfigured(let configured):
            dnsConfigured = configured
        }
    }

    /// The addresses of one link, in a stable order (family, then address text).
    public func addresses(of index: InterfaceIndex) -> [InterfaceAddress] {
        (addresses[index].map { Array($0.values) } ?? []).sorted {
            ($0.family == .ipv4 ? 0 : 1, $0.address.description) < ($1.family == .ipv4 ? 0 : 1, $1.address.description)
        }
    }

    /// Whether the link has an address the kernel would source traffic from.
    public func hasUsableAddress(_ index: InterfaceIndex, family: AddressFamily) -> Bool {
        addresses[index]?.values.contains { $0.family == family && $0.isUsableSource } ?? false
    }

    /// The links in index order.
    public var sortedLinks: [Link] { links.values.sorted { $0.index < $1.index } }
}
