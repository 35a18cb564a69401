import PathModel

/// One match key of an `[Interface]` section (`Name=`, `Type=` or `Kind=`): glob terms,
/// each optionally negated with a leading `!`.
///
/// A value is admitted when it matches no negated term and, if there are plain terms,
/// at least one of them. An empty list admits everything. A missing value (a link with
/// no netlink kind) matches no term: it is admitted only when the list has no plain term.
public struct MatchList: Hashable, Sendable {
    public private(set) var included: [GlobPattern] = []
    public private(set) var excluded: [GlobPattern] = []

    public init() {}

    public var isEmpty: Bool { included.isEmpty && excluded.isEmpty }

    /// Adds a term as written (`wwan*` or `!wwan9`).
    public mutating func append(_ term: String) {
        if term.hasPrefix("!") {
            excluded.append(GlobPattern(String(term.dropFirst())))
        } else {
            included.append(GlobPattern(term))
        }
    }

    public func admits(_ value: String?) -> Bool {
        guard let value else { return included.isEmpty }
        if excluded.contains(where: { $0.matches(value) }) { return false }
        return included.isEmpty || included.contains { $0.matches(value) }
    }

    /// The terms as written, plain ones first: the value of the key in INI form.
    public var terms: [String] { included.map(\.text) + excluded.map { "!" + $0.text } }
}

/// Which links an `[Interface]` section applies to: all three keys must admit the link.
/// `Type=` compares against the *detected* type (`Link.type`), never against a type an
/// earlier section set with `SetType=`, so the order of sections cannot change which
/// sections match.
public struct InterfaceMatch: Hashable, Sendable {
    public var name = MatchList()
    public var type = MatchList()
    public var kind = MatchList()

    public init() {}

    public func matches(_ link: Link) -> Bool {
        name.admits(link.name) && type.admits(link.type.rawValue) && kind.admits(link.kind)
    }
}

/// One `[Interface]` section: a match and the settings it states. A setting left nil
/// says nothing, so an earlier section's value (or the built-in default) stands.
public struct InterfaceRule: Hashable, Sendable, ConfigurationSection {
    public var match: InterfaceMatch
    public var isExpensive: Bool?
    public var isConstrained: Bool?
    public var setType: InterfaceType?
    public var isOnDemand: Bool?
    public var isIgnored: Bool?
    /// Where the section starts, for `--check-config` output and logs ("pathd.conf:12").
    public var origin: String

    public init(match: InterfaceMatch = InterfaceMatch(), isExpensive: Bool? = nil, isConstrained: Bool? = nil,
                setType: InterfaceType? = nil, isOnDemand: Bool? = nil, isIgnored: Bool? = nil, origin: String = "") {
        self.match = match
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.setType = setType
        self.isOnDemand = isOnDemand
        self.isIgnored = isIgnored
        self.origin = origin
    }
}

extension InterfaceRule {
    public static let sectionName = "Interface"
    public static var defaults: InterfaceRule { InterfaceRule() }

    /// Every `[Interface]` key, in the order `--check-config` prints those a section sets.
    /// Match keys accumulate their terms (an empty value empties the list, as in
    /// systemd); every other key is unset (nil) until a section sets it.
    public static let keys: [ConfigurationKey<InterfaceRule>] = [
        globs("Name", \.match.name, "match the interface name"),
        ConfigurationKey("Type", .types,
                         range: "types among \(InterfaceType.writtenNamesDescription), each may start with !",
                         "match the detected type",
                         parse: { rule, value in
                             // Checked whole before any term is kept: a refused value changes nothing.
                             var canonical: [String] = []
                             for term in terms(value) {
                                 let excluding = term.hasPrefix("!")
                                 guard let type = InterfaceType(written: excluding ? String(term.dropFirst()) : term)
                                 else {
                                     return .refused("Type= expects types among "
                                         + "\(InterfaceType.writtenNamesDescription) (each may start with !), "
                                         + "got \(quoted(term))")
                                 }
                                 // Kept by the protocol's name, the name `matches` compares and
                                 // --check-config prints.
                                 canonical.append((excluding ? "!" : "") + type.rawValue)
                             }
                             for term in canonical { rule.match.type.append(term) }
                             return .set
                         },
                         reset: { $0.match.type = MatchList() },
                         print: { $0.match.type.isEmpty ? nil : $0.match.type.terms.joined(separator: " ") }),
        globs("Kind", \.match.kind, "match the netlink link kind (veth, bridge, wireguard, tun, vlan, ...)"),
        flag("Expensive", \.isExpensive, "paths through it are expensive (built in: yes for cellular)"),
        flag("Constrained", \.isConstrained, "paths through it are constrained"),
        flag("OnDemand", \.isOnDemand, "it comes up when traffic needs it (dial on demand)"),
        flag("Ignore", \.isIgnored, "never part of a path"),
        ConfigurationKey("SetType", .type, range: "one of \(InterfaceType.writtenNamesDescription)",
                         "report it as this type instead of the detected one",
                         parse: { rule, value in
                             guard let type = InterfaceType(written: value) else {
                                 return .invalid(expectation: "one of \(InterfaceType.writtenNamesDescription)")
                             }
                             rule.setType = type
                             return .set
                         },
                         reset: { $0.setType = nil },
                         print: { $0.setType?.rawValue }),
    ]

    private static func terms(_ value: String) -> [String] {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    private static func globs(_ name: String, _ setting: WritableKeyPath<InterfaceRule, MatchList> & Sendable,
                              _ summary: String) -> ConfigurationKey<InterfaceRule> {
        ConfigurationKey(name, .globs, range: "shell globs, each may start with !", summary,
                         parse: { rule, value in
                             for term in terms(value) {
                                 guard term != "!" else {
                                     return .refused("\(name)= has a lone \"!\"; write !PATTERN with no space")
                                 }
                                 rule[keyPath: setting].append(term)
                             }
                             return .set
                         },
                         reset: { $0[keyPath: setting] = MatchList() },
                         print: { rule in
                             rule[keyPath: setting].isEmpty ? nil : rule[keyPath: setting].terms.joined(separator: " ")
                         })
    }

    private static func flag(_ name: String, _ setting: WritableKeyPath<InterfaceRule, Bool?> & Sendable,
                             _ summary: String) -> ConfigurationKey<InterfaceRule> {
        ConfigurationKey(name, .bool, range: "yes, no, true, false, on, off, 1, 0", summary,
                         parse: { rule, value in
                             guard let parsed = Configuration.parseBoolean(value) else {
                                 return .invalid(expectation: "a boolean (yes, no, true, false, on, off, 1, 0)")
                             }
                             rule[keyPath: setting] = parsed
                             return .set
                         },
                         reset: { $0[keyPath: setting] = nil },
                         print: { $0[keyPath: setting].map { $0 ? "yes" : "no" } })
    }
}
