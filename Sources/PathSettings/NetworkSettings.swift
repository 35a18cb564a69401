// SPDX-License-Identifier: Apache-2.0
import PathModel

/// What a `[Network]` section is matched against: one identified network, as one link
/// is on it (`NetworkIdentifier`, PathEvaluation, gathers it).
public struct NetworkCandidate: Hashable, Sendable {
    public var id: NetworkID
    public var facts: NetworkFacts
    public var link: Link
    /// The link's gateways, both families (its own routes' next hops).
    public var gateways: [IPAddress]
    /// The link's own addresses, in no particular order.
    public var addresses: [IPAddress]
    public var hints: NetworkHints

    public init(id: NetworkID, facts: NetworkFacts, link: Link, gateways: [IPAddress] = [],
                addresses: [IPAddress] = [], hints: NetworkHints = .none) {
        self.id = id
        self.facts = facts
        self.link = link
        self.gateways = gateways
        self.addresses = addresses
        self.hints = hints
    }
}

/// One `[Network]` section: which networks it names (every key given must match; a key
/// with several values matches when one of them does) and what it says of them. The
/// first section that matches a network is that network's; later ones are not read
/// for it. A section matches only an identified network: a pending or unidentified one
/// has no facts to match, so a section never names a network by a guess.
public struct NetworkSettings: Hashable, Sendable, RepeatedSection {
    public struct Match: Hashable, Sendable {
        /// `ID=`: as pathctl prints it.
        public var ids: [NetworkID] = []
        /// `GatewayMAC=`: a gateway's whole MAC, or its first bytes (an OUI: 3).
        public var gatewayMACs: [[UInt8]] = []
        /// `GatewayAddress=`: one of the link's gateways.
        public var gatewayAddresses: [IPAddress] = []
        /// `Prefix=`: holds one of the link's own addresses.
        public var prefixes: [IPPrefix] = []
        /// `DNSDomain=`: among the search domains a hint gave (DHCP, router advertisements).
        public var dnsDomains: [String] = []
        /// `Interface=`: as `[Interface] Name=`.
        public var interface = MatchList()
        /// `Type=`: as `[Interface] Type=`, the detected type.
        public var type = MatchList()
        /// `Hint=`: a hint the network gave (`NetworkHint`).
        public var hints: [NetworkHint] = []

        public init() {}

        public func matches(_ candidate: NetworkCandidate) -> Bool {
            (ids.isEmpty || ids.contains(candidate.id))
                && (gatewayMACs.isEmpty || gatewayMACs.contains { prefix in
                    candidate.facts.gatewayMACs.contains { $0.bytes.starts(with: prefix) }
                })
                && (gatewayAddresses.isEmpty || gatewayAddresses.contains(where: candidate.gateways.contains))
                && (prefixes.isEmpty
                    || prefixes.contains { prefix in candidate.addresses.contains(where: prefix.contains) })
                && (dnsDomains.isEmpty || dnsDomains.contains(where: candidate.hints.dnsDomains.contains))
                && interface.admits(candidate.link.name) && type.admits(candidate.link.type.rawValue)
                && (hints.isEmpty || hints.contains(where: candidate.hints.names.contains))
        }
    }

    /// What a section states of the networks it matches.
    public struct Stated: Hashable, Sendable {
        /// `Name=`: what pathctl, the path's `network` and the metrics call the network.
        public var name: String?
        public var isExpensive: Bool?
        public var isConstrained: Bool?

        public init(name: String? = nil, isExpensive: Bool? = nil, isConstrained: Bool? = nil) {
            self.name = name
            self.isExpensive = isExpensive
            self.isConstrained = isConstrained
        }
    }

    public var match: Match
    public var stated: Stated
    /// Where the section starts ("pathd.conf:12").
    public var origin: String

    public init(match: Match = Match(), stated: Stated = Stated(), origin: String = "") {
        self.match = match
        self.stated = stated
        self.origin = origin
    }

    public init(origin: String) {
        self.init(match: .init(), stated: Stated(), origin: origin)
    }

    public static let sectionName = "Network"
    public static var defaults: NetworkSettings { NetworkSettings() }
    /// Values one list key of a section takes at most, over all its lines.
    public static let maximumValuesPerKey = 64
}

extension NetworkSettings {
    /// Every `[Network]` key, in the order `--check-config` prints those a section sets.
    public static let keys: [ConfigurationKey<NetworkSettings>] = [
        list("ID", .ids, \.match.ids, range: "IDs of 32 hexadecimal digits, as pathctl prints them",
             "match the network's ID", parse: NetworkID.init, print: \.description),
        list("GatewayMAC", .macs, \.match.gatewayMACs,
             range: "MAC addresses (00:00:5e:00:01:01), or their first bytes (an OUI: 00:00:5e)",
             "match the MAC address of the gateway the network is identified by",
             parse: LinkLayerAddress.pairs,
             print: { LinkLayerAddress(bytes: $0)?.description ?? "" }),
        list("GatewayAddress", .addresses, \.match.gatewayAddresses, range: "IPv4 or IPv6 addresses",
             "match a gateway of the link (its IPv4 gateway or IPv6 default router)",
             parse: { IPAddress($0) }, print: \.description),
        list("Prefix", .prefixes, \.match.prefixes, range: "prefixes (192.168.1.0/24, 2001:db8::/64)",
             "match when one of the link's addresses lies in one of them", parse: IPPrefix.init, print: \.description),
        list("DNSDomain", .domains, \.match.dnsDomains, range: "domain names",
             "match a DNS search domain the network gave (DHCP, router advertisements)",
             parse: { DomainName.canonical($0) }, print: { $0 }),
        globs("Interface", \.match.interface, "match the interface name, as [Interface] Name="),
        types("Type", \.match.type, "match the detected type, as [Interface] Type="),
        list("Hint", .hints, \.match.hints, range: NetworkHint.knownNames,
             "match a hint the network gave: androidMetered (DHCP's ANDROID_METERED), "
                 + "ipheth (an iPhone's USB tethering)",
             parse: { NetworkHint(known: $0) }, print: \.rawValue),
        ConfigurationKey("Name", .name, range: LinkNetwork.validNameDescription,
                         "what pathctl, the path's network and the metrics call the network",
                         parse: { rule, value in
                             guard LinkNetwork.isValidName(value) else {
                                 return .invalid(expectation: LinkNetwork.validNameDescription)
                             }
                             rule.stated.name = value
                             return .set
                         },
                         reset: { $0.stated.name = nil },
                         print: { $0.stated.name }),
        flag("Expensive", \.isExpensive, "paths through the network are expensive, whatever [Interface] says"),
        flag("Constrained", \.isConstrained, "paths through the network are constrained, whatever [Interface] says"),
    ]

    /// A match key taking a list of values: each line adds its words, checked whole
    /// first (a refused line changes nothing); an empty value empties the list.
    private static func list<Value: Hashable & Sendable>(
        _ name: String, _ kind: ConfigurationKey<NetworkSettings>.Kind,
        _ setting: WritableKeyPath<NetworkSettings, [Value]> & Sendable, range: String, _ summary: String,
        parse: @escaping @Sendable (String) -> Value?, print: @escaping @Sendable (Value) -> String
    ) -> ConfigurationKey<NetworkSettings> {
        ConfigurationKey(name, kind, range: range, summary,
                         parse: { rule, value in
                             var added = rule[keyPath: setting]
                             for word in terms(value) {
                                 guard let parsed = parse(word) else {
                                     return .refused("\(name)= expects \(range), got \(SettingText.quoted(word))")
                                 }
                                 if !added.contains(parsed) { added.append(parsed) }
                             }
                             guard added.count <= maximumValuesPerKey else {
                                 return .refused("\(name)= has more than \(maximumValuesPerKey) values in one section")
                             }
                             rule[keyPath: setting] = added
                             return .set
                         },
                         reset: { $0[keyPath: setting] = [] },
                         print: { rule in
                             rule[keyPath: setting].isEmpty ? nil
                                 : rule[keyPath: setting].map(print).joined(separator: " ")
                         })
    }

    private static func flag(_ name: String, _ setting: WritableKeyPath<Stated, Bool?> & Sendable,
                             _ summary: String) -> ConfigurationKey<NetworkSettings> {
        ConfigurationKey(name, .bool, range: SettingText.booleanWords, summary,
                         parse: { rule, value in
                             guard let flag = SettingText.boolean(value) else {
                                 return .invalid(expectation: "a boolean (\(SettingText.booleanWords))")
                             }
                             rule.stated[keyPath: setting] = flag
                             return .set
                         },
                         reset: { $0.stated[keyPath: setting] = nil },
                         print: { $0.stated[keyPath: setting].map(SettingText.word(for:)) })
    }
}

extension NetworkKey {
    /// Where the machine ID is (machine-id(5)): the key's base unless `[Daemon]
    /// NetworkKeyFile=` names another (PathConfiguration reads it).
    public static let machineIDPath = "/etc/machine-id"
}
