// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Which network a link is on: what a path line and the `interfaces` reply say of it
/// (docs/PROTOCOL.md, "Networks"). Computed by `NetworkIdentifier` (PathEvaluation) from
/// the snapshot, the configuration's `[Network]` sections and the key; a link without
/// carrier is on no network and has none.
public struct LinkNetwork: Hashable, Sendable {
    /// How far identification got.
    public enum State: OpenEnumeration {
        /// The network is known by confirmed facts (`anchor`); `id` names it.
        case identified
        /// The carrier came back less than `CarrierEpoch.settlingTime` ago and no gateway
        /// is confirmed on it yet: an answer is expected shortly. Never a guess: the
        /// neighbour entry of the network before does not name this one.
        case pending
        /// Nothing to anchor an identity on: no gateway through the link, or none
        /// confirmed within the settling time (identified as soon as one is).
        case unidentified
        case unrecognized(String)

        public static let allCases: [State] = [.identified, .pending, .unidentified]

        public var rawValue: String {
            switch self {
            case .identified: "identified"
            case .pending: "pending"
            case .unidentified: "unidentified"
            case .unrecognized(let name): name
            }
        }
    }

    /// What an identity is anchored on (identified), or waits for (pending).
    public enum Anchor: OpenEnumeration {
        /// The link-layer address of the link's gateway (IPv4) or default router (IPv6),
        /// from the neighbour table, confirmed on the present carrier.
        case gatewayMAC
        /// A well-known virtual router's MAC (VRRP, HSRP) with the gateway's address and
        /// the prefix holding it: the MAC alone is shared by thousands of sites.
        case virtualRouter
        /// A link without layer 2 (tun, WireGuard, PPP, raw-IP WWAN): its kind and gateway.
        case gateway
        /// A link without layer 2 and without a gateway: its kind and on-link prefix.
        case prefix
        case unrecognized(String)

        public static let allCases: [Anchor] = [.gatewayMAC, .virtualRouter, .gateway, .prefix]

        public var rawValue: String {
            switch self {
            case .gatewayMAC: "gatewayMAC"
            case .virtualRouter: "virtualRouter"
            case .gateway: "gateway"
            case .prefix: "prefix"
            case .unrecognized(let name): name
            }
        }
    }

    public var state: State
    /// The keyed hash of the anchor's facts (`NetworkKey.id(of:)`); nil unless identified.
    public var id: NetworkID?
    /// `Name=` of the first `[Network]` section matching the network; nil when none does.
    public var name: String?
    public var anchor: Anchor?

    public init(state: State, id: NetworkID? = nil, name: String? = nil, anchor: Anchor? = nil) {
        self.state = state
        self.id = id
        self.name = name
        self.anchor = anchor
    }

    /// Whether the network is the one `reference` names: identified, and `reference` is
    /// its configured name or its ID (either case). A pending or unidentified network is
    /// none yet, whatever it turns out to be.
    public func isKnown(as reference: String) -> Bool {
        guard state == .identified else { return false }
        return name == reference || (id != nil && id == NetworkID(reference))
    }

    /// The longest `[Network] Name=`, in bytes.
    public static let maximumNameBytes = 64

    /// Whether `name` is a network name pathd takes (`[Network] Name=`, and a criterion
    /// naming a network): it appears in metrics labels and on pathctl's command line, so
    /// only a plain word: letters, digits, '.', '_' and '-', starting with a letter or a
    /// digit, at most `maximumNameBytes` bytes.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, (1...maximumNameBytes).contains(name.utf8.count) else {
            return false
        }
        func plain(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar))
        }
        return plain(first) && name.unicodeScalars.allSatisfy { plain($0) || $0 == "." || $0 == "_" || $0 == "-" }
    }

    /// "letters, digits, '.', '_' and '-', …": what `isValidName` takes, in words.
    public static let validNameDescription = "letters, digits, '.', '_' and '-', starting with a letter or digit, "
        + "at most \(maximumNameBytes) bytes"

    /// "home (identified)", "3f2a… (identified)", "pending": for a person.
    public var summary: String {
        switch state {
        case .identified:
            return name ?? id.map { String($0.description.prefix(12)) } ?? state.rawValue
        default:
            return name.map { "\($0) (\(state.rawValue))" } ?? state.rawValue
        }
    }
}

/// A network's published identity: 128 bits of a keyed hash (`NetworkKey`), written as
/// 32 lowercase hexadecimal digits, as `/etc/machine-id` is. It says nothing of the
/// facts behind it to whoever lacks the key.
public struct NetworkID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let byteCount = 16

    /// The bytes in place, in two big-endian words: an ID is in every path line and
    /// every identification, and an array would be a heap object of its own, read cold
    /// before each change's line. Their order is the bytes' order.
    private let high: UInt64
    private let low: UInt64

    public var bytes: [UInt8] { BigEndianWords.bytes(of: high) + BigEndianWords.bytes(of: low) }

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        high = BigEndianWords.word(bytes[0..<8])
        low = BigEndianWords.word(bytes[8..<16])
    }

    /// The first `byteCount` bytes of a SHA-256 digest (32 bytes).
    init(digest: [UInt8]) {
        precondition(digest.count >= Self.byteCount, "a network ID needs \(Self.byteCount) bytes of digest")
        high = BigEndianWords.word(digest[0..<8])
        low = BigEndianWords.word(digest[8..<16])
    }

    /// 32 hexadecimal digits, either case; nil for anything else.
    public init?(_ text: String) {
        guard text.utf8.count == 2 * Self.byteCount, let bytes = Hexadecimal.bytes(text) else { return nil }
        self.init(bytes: bytes)
    }

    public var description: String {
        var text: [UInt8] = []
        text.reserveCapacity(2 * Self.byteCount)
        appendText(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `description`'s text, written after `text`'s bytes.
    public func appendText(to text: inout [UInt8]) {
        Hexadecimal.append(word: high, to: &text)
        Hexadecimal.append(word: low, to: &text)
    }

    public static func < (left: NetworkID, right: NetworkID) -> Bool {
        (left.high, left.low) < (right.high, right.low)
    }
}

/// The facts an identity is computed from: the raw material of `NetworkID`. Never
/// published to an unprivileged peer, never written to the history or the metrics
/// (docs/ARCHITECTURE.md, "Network identity").
public struct NetworkFacts: Hashable, Sendable {
    public var anchor: LinkNetwork.Anchor
    /// The gateways' link-layer addresses (gatewayMAC, virtualRouter), sorted.
    public var gatewayMACs: [LinkLayerAddress]
    /// The gateways (virtualRouter, gateway), sorted.
    public var gateways: [IPAddress]
    /// The prefix holding the gateway (virtualRouter) or the link's address (prefix).
    public var prefix: IPPrefix?
    /// The rtnetlink link kind (gateway, prefix: a link without layer 2), when it has one.
    public var linkKind: String?

    public init(anchor: LinkNetwork.Anchor, gatewayMACs: [LinkLayerAddress] = [], gateways: [IPAddress] = [],
                prefix: IPPrefix? = nil, linkKind: String? = nil) {
        self.anchor = anchor
        // Most links have one gateway: sorting one copies it, at every evaluation.
        self.gatewayMACs = gatewayMACs.count < 2 ? gatewayMACs : gatewayMACs.sorted()
        self.gateways = gateways.count < 2 ? gateways
            : gateways.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        self.prefix = prefix
        self.linkKind = linkKind
    }

    /// The bytes the ID hashes: a version tag, then `name=value` fields in a fixed
    /// order, each ended by a NUL. What the link is (its name, its type) is not among
    /// them: the same router reached by cable or by Wi-Fi is the same network.
    public var canonicalBytes: [UInt8] {
        var fields = ["pathd-network-1", "anchor=\(anchor.rawValue)"]
        fields += gatewayMACs.map { "mac=\($0)" }
        fields += gateways.map { "gateway=\($0)" }
        if let prefix { fields.append("prefix=\(prefix)") }
        if let linkKind { fields.append("kind=\(linkKind)") }
        return fields.flatMap { Array($0.utf8) + [0] }
    }
}

/// The key network IDs are computed with. Derived from a 128-bit base ID exactly as
/// `sd_id128_get_app_specific(3)` derives an application's ID (systemd's
/// src/libsystemd/sd-id128/sd-id128.c): HMAC-SHA256 keyed by the base ID over pathd's
/// application ID, its first 16 bytes, marked as a version 4 UUID. The base is the
/// machine ID (`/etc/machine-id`), so that the key is the value
/// `systemd-id128 machine-id --app-specific=3691b716701142dd978e968524f14d7e` prints, or
/// a fleet's ID (`NetworkKeyFile=`), so that every host of a site computes the same IDs.
public struct NetworkKey: Hashable, Sendable {
    /// pathd's application ID for network identity, made once with `systemd-id128 new`.
    public static let applicationID: [UInt8] = Hexadecimal.bytes("3691b716701142dd978e968524f14d7e") ?? []

    public let bytes: [UInt8]
    /// The IDs this key computed last, by their facts: every evaluation asks again for the
    /// networks a path lists, and an HMAC is four SHA-256 blocks the path's line would wait
    /// for. Not part of the key's value (`==`, `hash(into:)`).
    private let recent = RecentIDs()

    /// The key for a base ID of 16 bytes; nil for another length or an all-zero ID
    /// (systemd refuses a null ID too).
    public init?(base: [UInt8]) {
        guard base.count == 16, base.contains(where: { $0 != 0 }) else { return nil }
        bytes = Self.applicationSpecific(base: base, application: Self.applicationID)
    }

    public static func == (left: NetworkKey, right: NetworkKey) -> Bool { left.bytes == right.bytes }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

    /// A base ID as `/etc/machine-id` and `systemd-id128 new` write it: 32 hexadecimal
    /// digits, or the UUID form with hyphens, surrounding white space ignored.
    public static func baseID(_ text: String) -> [UInt8]? {
        let digits = text.filter { !$0.isWhitespace && $0 != "-" }
        guard digits.utf8.count == 32, let bytes = Hexadecimal.bytes(digits) else { return nil }
        return bytes
    }

    /// `sd_id128_get_app_specific(base, application)`: the first half of
    /// HMAC-SHA256(key: base, message: application), with the version 4 UUID bits set
    /// (`id128_make_v4_uuid`).
    public static func applicationSpecific(base: [UInt8], application: [UInt8]) -> [UInt8] {
        var id = Array(HMAC.sha256(key: base, message: application).prefix(16))
        id[6] = id[6] & 0x0F | 0x40
        id[8] = id[8] & 0x3F | 0x80
        return id
    }

    /// The ID of the network these facts describe: the first 16 bytes of
    /// HMAC-SHA256(key, facts' canonical bytes).
    public func id(of facts: NetworkFacts) -> NetworkID {
        if let known = recent.id(of: facts) { return known }
        let id = NetworkID(digest: HMAC.sha256(key: bytes, message: facts.canonicalBytes))
        recent.remember(id, of: facts)
        return id
    }
}

/// A key's last IDs, at most `capacity` (a host is on a few networks at a time; past
/// that it starts again empty), shared by the copies of the key and safe from any thread.
/// A list compared in order, not a dictionary: the path's line waits for the lookup, and
/// comparing a few facts costs less than hashing one.
private final class RecentIDs: Sendable {
    static let capacity = 32
    /// A struct, not a tuple: a tuple holding the facts is copied through the runtime's
    /// generic tuple functions.
    private struct Known {
        let facts: NetworkFacts
        let id: NetworkID
    }

    private let ids = Mutex<[Known]>([])

    func id(of facts: NetworkFacts) -> NetworkID? {
        ids.withLock { ids in
            for known in ids.reversed() where known.facts == facts { return known.id }
            return nil
        }
    }

    func remember(_ id: NetworkID, of facts: NetworkFacts) {
        ids.withLock { ids in
            if ids.count >= Self.capacity { ids = [] }
            ids.append(Known(facts: facts, id: id))
        }
    }
}

/// Which rule decided a link's (or a path's) `isExpensive` or `isConstrained`, in the
/// order of precedence: a `[Network]` section, an `[Interface]` section, a hint about
/// the network, the interface type's built-in default.
public enum CostSource: OpenEnumeration {
    case network
    case interface
    case hint
    case type
    case unrecognized(String)

    public static let allCases: [CostSource] = [.network, .interface, .hint, .type]

    public var rawValue: String {
        switch self {
        case .network: "network"
        case .interface: "interface"
        case .hint: "hint"
        case .type: "type"
        case .unrecognized(let name): name
        }
    }
}

/// What traffic over one link costs, and which rule said so.
public struct LinkCost: Hashable, Sendable {
    public var isExpensive: Bool
    public var isExpensiveSetBy: CostSource
    public var isConstrained: Bool
    public var isConstrainedSetBy: CostSource

    public init(isExpensive: Bool, isExpensiveSetBy: CostSource, isConstrained: Bool,
                isConstrainedSetBy: CostSource) {
        self.isExpensive = isExpensive
        self.isExpensiveSetBy = isExpensiveSetBy
        self.isConstrained = isConstrained
        self.isConstrainedSetBy = isConstrainedSetBy
    }
}

/// A named fact about a link's network that comes without configuration: what
/// `[Network] Hint=` matches, and, for some, a cost.
public enum NetworkHint: OpenEnumeration {
    /// DHCP vendor option 43 says `ANDROID_METERED`, as every Android hotspot and USB
    /// tether sends: expensive, as Android and NetworkManager take it.
    case androidMetered
    /// The link's driver is `ipheth`, an iPhone's USB tethering: expensive.
    case ipheth
    case unrecognized(String)

    public static let allCases: [NetworkHint] = [.androidMetered, .ipheth]

    public var rawValue: String {
        switch self {
        case .androidMetered: "androidMetered"
        case .ipheth: "ipheth"
        case .unrecognized(let name): name
        }
    }

    /// Whether the hint makes the network expensive unless configuration says otherwise.
    public var impliesExpensive: Bool {
        switch self {
        case .androidMetered, .ipheth: true
        case .unrecognized: false
        }
    }

    /// The hint a link's driver gives (`/sys/class/net/NAME/device/uevent`'s `DRIVER=`).
    public static func ofDriver(_ driver: String?) -> NetworkHint? {
        driver == "ipheth" ? .ipheth : nil
    }
}

/// What was learnt of a link's network without configuration, beyond the kernel's
/// tables: kept per link in the snapshot (`Snapshot.hints`), from DHCP (hooks passing
/// the lease, a privileged request) and router advertisements. Precedence: below
/// `[Network]` and `[Interface]`, above the type's default (`CostSource.hint`).
public struct NetworkHints: Hashable, Sendable {
    public var names: Set<NetworkHint>
    /// DNS search domains (DHCP options 15 and 119, the RA's DNSSL), lowercase.
    public var dnsDomains: [String]
    /// The captive portal's URI (DHCP option 114, RA option 37: RFC 8910).
    public var captivePortal: String?

    public init(names: Set<NetworkHint> = [], dnsDomains: [String] = [], captivePortal: String? = nil) {
        self.names = names
        self.dnsDomains = dnsDomains
        self.captivePortal = captivePortal
    }

    /// No hints. Made where it is read, not kept in a global: a global's first use is
    /// checked at every read, cold before each change's line.
    public static var none: NetworkHints { NetworkHints() }

    /// What the hints say of cost: expensive when one of them implies it; nil (nothing)
    /// otherwise.
    public var isExpensive: Bool? {
        names.contains(where: \.impliesExpensive) ? true : nil
    }
}

extension LinkCost {
    /// One flag by precedence, and the rule that decided it: a `[Network]` section's
    /// statement, then an `[Interface]` section's, then the hints', then the type's
    /// default. Nil says nothing; the type always has a default.
    public static func decide(network: Bool?, interface: Bool?, hint: Bool?,
                              typeDefault: Bool) -> (value: Bool, setBy: CostSource) {
        if let network { return (network, .network) }
        if let interface { return (interface, .interface) }
        if let hint { return (hint, .hint) }
        return (typeDefault, .type)
    }
}
