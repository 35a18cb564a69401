// SPDX-License-Identifier: Apache-2.0
/// Where hints about a link's network come from, each kept and forgotten on its own
/// terms, and merged into the link's `NetworkHints` (`Snapshot.hints`):
///
/// - a DHCP lease per family (`DHCPLease`), passed by the DHCP client's hook through the
///   privileged `reportLease` request: forgotten when it ends, when the link loses the
///   leased address or its carrier;
/// - each router's advertisements (`RouterOption`, RTM_NEWNDUSEROPT): the search list
///   for the lifetime the router gives each domain, the captive portal until the router
///   says otherwise; forgotten when the link loses its carrier.
///
/// docs/ARCHITECTURE.md, "Network identity", "Hints".
public struct LinkHintSources: Hashable, Sendable {
    /// Routers whose options a link keeps at most: a link has one or two routers; the
    /// bound keeps what a host on the link that sends advertisements of its own can make
    /// pathd hold. Options of a router past it are not kept.
    public static let maximumRouters = 8

    /// The DHCP lease of each family, as the client's hook last reported it.
    public private(set) var leases: [AddressFamily: DHCPLease] = [:]
    /// Each router's options, by the router's (link-local) address.
    public private(set) var routers: [IPAddress: RouterHints] = [:]

    public init() {}

    public var isEmpty: Bool { leases.isEmpty && routers.isEmpty }

    /// What every source says, merged: the hints' names together, the domains in the
    /// order leases (IPv4, then IPv6) then routers (by address) gave them, each once and
    /// at most `NetworkHints.maximumDomains`, and the first captive portal in that order
    /// (RFC 8910 §2 calls different URIs from one network a configuration error).
    public var merged: NetworkHints {
        var hints = NetworkHints()
        var sources = AddressFamily.allCases.compactMap { leases[$0]?.hints }
        sources += routers.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }.map(\.value.hints)
        for source in sources {
            hints.names.formUnion(source.names)
            for domain in source.dnsDomains where !hints.dnsDomains.contains(domain)
                && hints.dnsDomains.count < NetworkHints.maximumDomains {
                hints.dnsDomains.append(domain)
            }
            if hints.captivePortal == nil { hints.captivePortal = source.captivePortal }
        }
        return hints
    }

    /// Keeps `lease` as its family's, replacing the one before.
    public mutating func record(_ lease: DHCPLease) {
        leases[lease.family] = lease
    }

    /// Forgets the lease of `family`; whether there was one.
    @discardableResult
    public mutating func endLease(of family: AddressFamily) -> Bool {
        leases.removeValue(forKey: family) != nil
    }

    /// Forgets the leases of `address`: the link lost it.
    public mutating func addressRemoved(_ address: IPAddress) {
        leases = leases.filter { $0.value.address != address }
    }

    /// Forgets the leases whose address is not among `addresses` (a re-dump of the link's
    /// addresses): one lost while nobody listened.
    public mutating func keepLeases(onAddresses addresses: Set<IPAddress>) {
        leases = leases.filter { $0.value.address.map(addresses.contains) ?? true }
    }

    /// Takes one option of a router's advertisement.
    public mutating func apply(_ option: RouterOption) {
        guard routers[option.router] != nil || routers.count < Self.maximumRouters else { return }
        var router = routers[option.router] ?? RouterHints()
        router.apply(option)
        routers[option.router] = router.isEmpty ? nil : router
    }

    /// Forgets what the routers said that expired at `instant` or before.
    public mutating func expireRouterHints(through instant: MonotonicInstant) {
        for (address, var router) in routers {
            router.expire(through: instant)
            routers[address] = router.isEmpty ? nil : router
        }
    }

    /// When the first thing a router said expires; nil when nothing does.
    public var nextExpiry: MonotonicInstant? {
        routers.values.compactMap(\.nextExpiry).min()
    }
}

/// What one router advertised that pathd keeps: its search domains, each until its
/// lifetime ends (RFC 8106 §5.3: a new lifetime replaces the old, zero withdraws it), and
/// its captive portal (RFC 8910 has no lifetime: the next option replaces it).
public struct RouterHints: Hashable, Sendable {
    public struct Domain: Hashable, Sendable {
        public var name: String
        public var expiresAt: MonotonicInstant?
    }

    /// The domains, in the order the router first gave them, each with when it expires
    /// (nil: never, RFC 8106's infinite lifetime).
    public private(set) var domains: [Domain] = []
    public private(set) var captivePortal: String?

    public init() {}

    public var isEmpty: Bool { domains.isEmpty && captivePortal == nil }

    public var hints: NetworkHints {
        NetworkHints(dnsDomains: domains.map(\.name), captivePortal: captivePortal)
    }

    var nextExpiry: MonotonicInstant? { domains.compactMap(\.expiresAt).min() }

    mutating func apply(_ option: RouterOption) {
        switch option.content {
        case .captivePortal(let uri):
            captivePortal = uri
        case .dnsSearchList(let names, let lifetime):
            let expiresAt = lifetime.map { option.receivedAt + $0 }
            for name in names {
                if let held = domains.firstIndex(where: { $0.name == name }) {
                    if lifetime == .zero { domains.remove(at: held) } else { domains[held].expiresAt = expiresAt }
                } else if lifetime != .zero && domains.count < NetworkHints.maximumDomains {
                    domains.append(Domain(name: name, expiresAt: expiresAt))
                }
            }
        }
    }

    mutating func expire(through instant: MonotonicInstant) {
        domains.removeAll { $0.expiresAt.map { $0 <= instant } ?? false }
    }
}

/// One DHCP lease's facts, as a DHCP client's hook passes them (`reportLease`,
/// docs/PROTOCOL.md): what the network said of itself beyond the address.
public struct DHCPLease: Hashable, Sendable {
    public var family: AddressFamily
    /// The leased address (DHCPv4's yiaddr, DHCPv6's IA address): the lease is forgotten
    /// when the link loses it. Nil when the hook gave none (DHCPv6 without an address:
    /// stateless, prefix delegation).
    public var address: IPAddress?
    /// The server identifier: for DHCPv4 the server's address (option 54), for DHCPv6
    /// its DUID in hexadecimal. A raw fact: shown to privileged peers only.
    public var server: String?
    /// The hints the lease carries: `androidMetered` (vendor option 43), the domains
    /// (options 15 and 119; DHCPv6's 24), the captive portal (option 114; DHCPv6's 103).
    public var hints: NetworkHints

    public init(family: AddressFamily, address: IPAddress? = nil, server: String? = nil,
                hints: NetworkHints = .none) {
        self.family = family
        self.address = address
        self.server = server
        self.hints = hints
    }

    /// The longest server identifier kept: a DUID is at most 130 bytes (RFC 8415 §11.1),
    /// 260 hexadecimal digits; an IPv4 address is shorter.
    public static let maximumServerBytes = 260

    /// Why `text` is not a server identifier of `family`; nil when it is one. DHCPv4: an
    /// IPv4 address; DHCPv6: hexadecimal digits, in pairs optionally separated by colons.
    public static func serverRefusal(_ text: String, family: AddressFamily) -> String? {
        switch family {
        case .ipv4:
            guard let address = IPAddress(text), address.family == .ipv4 else {
                return "a DHCPv4 server identifier is the server's IPv4 address"
            }
            return nil
        case .ipv6:
            let digits = text.filter { $0 != ":" }
            guard text.utf8.count <= maximumServerBytes, !digits.isEmpty, digits.utf8.count % 2 == 0,
                  Hexadecimal.bytes(digits) != nil else {
                return "a DHCPv6 server identifier is its DUID in hexadecimal, at most \(maximumServerBytes) digits"
            }
            return nil
        }
    }
}

/// What a DHCP client's hook tells pathd about one lease (`reportLease`,
/// docs/PROTOCOL.md): the lease's facts once it is bound (or renewed), or that it ended.
public enum LeaseReport: Hashable, Sendable {
    /// A lease was bound, renewed or rebound: its facts replace its family's before.
    case bound(DHCPLease)
    /// The lease of the family ended (expired, released, the client stopped, the carrier
    /// went): pathd forgets its facts.
    case ended(AddressFamily)

    public var family: AddressFamily {
        switch self {
        case .bound(let lease): lease.family
        case .ended(let family): family
        }
    }

    /// "DHCPv4" or "DHCPv6", for a log line.
    public var protocolName: String { family == .ipv4 ? "DHCPv4" : "DHCPv6" }
}

/// One option of a router advertisement that the kernel passed on (RTM_NEWNDUSEROPT:
/// one message per option, from the router's link-local address) and that pathd reads.
public struct RouterOption: Hashable, Sendable {
    public enum Content: Hashable, Sendable {
        /// DNSSL (RFC 8106, option 31): search domains for `lifetime` (nil: infinity;
        /// zero: withdrawn).
        case dnsSearchList([String], lifetime: Duration?)
        /// The captive portal's URI (RFC 8910, option 37); nil when the network says it
        /// has none (`urn:ietf:params:capport:unrestricted`).
        case captivePortal(String?)
    }

    public var interface: InterfaceIndex
    /// The router's address (NDUSEROPT_SRCADDR), link-local.
    public var router: IPAddress
    /// When pathd read it: a lifetime runs from here.
    public var receivedAt: MonotonicInstant
    public var content: Content

    public init(interface: InterfaceIndex, router: IPAddress, receivedAt: MonotonicInstant, content: Content) {
        self.interface = interface
        self.router = router
        self.receivedAt = receivedAt
        self.content = content
    }
}

/// The captive portal's URI as a network announces it (DHCP option 114, the RA's option
/// 37; RFC 8910): the one rule for what pathd keeps and publishes.
public enum CaptivePortalURI {
    /// The longest URI kept, in bytes: a portal's API URI is short; the bound keeps path
    /// lines short whatever a network sends.
    public static let maximumBytes = 512
    /// RFC 8910 §2: the network has no captive portal.
    public static let unrestricted = "urn:ietf:params:capport:unrestricted"

    public enum Reading: Hashable, Sendable {
        /// An http or https URI to show.
        case portal(String)
        /// `unrestricted`: the network says it has no portal.
        case none
        /// Not a URI pathd keeps, and why.
        case refused(String)
    }

    /// Reads `text`: an `https://` or `http://` URI of printable ASCII without spaces, at
    /// most `maximumBytes`, or `unrestricted`.
    public static func read(_ text: String) -> Reading {
        if text.lowercased() == unrestricted { return .none }
        guard text.utf8.count <= maximumBytes else {
            return .refused("the captive portal URI is longer than \(maximumBytes) bytes")
        }
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return .refused("the captive portal URI must be printable ASCII without spaces")
        }
        let lower = text.lowercased()
        guard (lower.hasPrefix("https://") || lower.hasPrefix("http://")), !text.hasSuffix("://") else {
            return .refused("the captive portal URI must be an https:// or http:// URI, or \(unrestricted)")
        }
        return .portal(text)
    }
}

extension NetworkHints {
    /// What the hints say, for a log line or a person: "androidMetered; domains
    /// hotel.example; captive portal https://portal.example/"; "none" when nothing.
    public var summary: String {
        var parts: [String] = []
        if !names.isEmpty { parts.append(names.map(\.rawValue).sorted().joined(separator: ", ")) }
        if !dnsDomains.isEmpty { parts.append("domains " + dnsDomains.joined(separator: " ")) }
        if let captivePortal { parts.append("captive portal \(captivePortal)") }
        return parts.isEmpty ? "none" : parts.joined(separator: "; ")
    }

    /// Domains kept at most: per lease, per router, and merged (glibc's resolver reads 6
    /// search domains, systemd-resolved more; no network needs more than a few).
    public static let maximumDomains = 16
}

extension NetworkHint {
    /// The hints a DHCP vendor-specific information option (43) gives, as a DHCP client
    /// prints it: its text (dhclient: `ANDROID_METERED`), or its bytes in hexadecimal,
    /// with colons between them (dhclient, for bytes that are not all printable) or without
    /// (dhcpcd). `androidMetered` when the option holds `ANDROID_METERED` anywhere, as
    /// Android's DHCP client and NetworkManager read it.
    public static func inVendorOption(_ text: String) -> Set<NetworkHint> {
        let marker = Array("ANDROID_METERED".utf8)
        let digits = text.filter { $0 != ":" }
        let decoded = digits.utf8.count % 2 == 0 ? Hexadecimal.bytes(digits) : nil
        for bytes in [Array(text.utf8), decoded ?? []] where bytes.count >= marker.count {
            for start in 0...(bytes.count - marker.count)
            where bytes[start..<(start + marker.count)].elementsEqual(marker) {
                return [.androidMetered]
            }
        }
        return []
    }

    /// Whether a DHCP lease may carry the hint (`reportLease`): what a server says, not
    /// what the link's driver says (`ipheth`, which pathd reads itself).
    public var comesFromLeases: Bool {
        switch self {
        case .androidMetered: true
        case .ipheth, .unrecognized: false
        }
    }
}
