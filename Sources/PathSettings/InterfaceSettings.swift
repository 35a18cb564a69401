// SPDX-License-Identifier: Apache-2.0
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

/// One `[Interface]` section: a match and the settings it states.
public struct InterfaceSettings: Hashable, Sendable, RepeatedSection {
    /// What a section states, one property per key of `keys` that is not a match key. A
    /// setting left nil says nothing, so an earlier section's value (or the built-in
    /// default) stands; `Policy.settings(for:)` lays the matching sections over each
    /// other through the keys' `overlay`, so a new key needs no merge of its own.
    public struct Stated: Hashable, Sendable {
        public var isExpensive: Bool?
        public var isConstrained: Bool?
        /// `SetType=`: the type to report instead of the detected one.
        public var setType: InterfaceType?
        /// `OnDemand=`: comes up when traffic needs it (dial-on-demand PPP).
        public var isOnDemand: Bool?
        /// `Ignore=`: never a path, never listed.
        public var isIgnored: Bool?

        public init(isExpensive: Bool? = nil, isConstrained: Bool? = nil, setType: InterfaceType? = nil,
                    isOnDemand: Bool? = nil, isIgnored: Bool? = nil) {
            self.isExpensive = isExpensive
            self.isConstrained = isConstrained
            self.setType = setType
            self.isOnDemand = isOnDemand
            self.isIgnored = isIgnored
        }
    }

    public var match: InterfaceMatch
    public var stated: Stated
    /// Where the section starts, for `--check-config` output and logs ("pathd.conf:12").
    public var origin: String

    public init(match: InterfaceMatch = InterfaceMatch(), stated: Stated = Stated(), origin: String = "") {
        self.match = match
        self.stated = stated
        self.origin = origin
    }

    public init(origin: String) {
        self.init(match: .init(), stated: Stated(), origin: origin)
    }
}

extension ConfigurationSection {
    /// The words of a list value, split at spaces and tabs.
    static func terms(_ value: String) -> [String] {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// A match key of shell globs, each may start with `!` (`Name=`, `Kind=`,
    /// `Interface=`): each line adds its terms; an empty value empties the list.
    static func globs(_ name: String, _ list: WritableKeyPath<Self, MatchList> & Sendable,
                      _ summary: String) -> ConfigurationKey<Self> {
        ConfigurationKey(name, .globs, range: "shell globs, each may start with !", summary,
                         parse: { section, value in
                             for term in terms(value) {
                                 guard term != "!" else {
                                     return .refused("\(name)= has a lone \"!\"; write !PATTERN with no space")
                                 }
                                 section[keyPath: list].append(term)
                             }
                             return .set
                         },
                         reset: { $0[keyPath: list] = MatchList() },
                         print: { section in
                             section[keyPath: list].isEmpty ? nil : section[keyPath: list].terms.joined(separator: " ")
                         })
    }

    /// A match key of interface types, each may start with `!` (`Type=`), compared with
    /// the detected type and kept by the protocol's name.
    static func types(_ name: String, _ list: WritableKeyPath<Self, MatchList> & Sendable,
                      _ summary: String) -> ConfigurationKey<Self> {
        ConfigurationKey(name, .types,
                         range: "types among \(InterfaceType.writtenNamesDescription), each may start with !", summary,
                         parse: { section, value in
                             // Checked whole before any term is kept: a refused value changes nothing.
                             var canonical: [String] = []
                             for term in terms(value) {
                                 let excluding = term.hasPrefix("!")
                                 guard let type = InterfaceType(written: excluding ? String(term.dropFirst()) : term)
                                 else {
                                     return .refused("\(name)= expects types among "
                                         + "\(InterfaceType.writtenNamesDescription) (each may start with !), "
                                         + "got \(SettingText.quoted(term))")
                                 }
                                 // Kept by the protocol's name, the name `matches` compares and
                                 // --check-config prints.
                                 canonical.append((excluding ? "!" : "") + type.rawValue)
                             }
                             for term in canonical { section[keyPath: list].append(term) }
                             return .set
                         },
                         reset: { $0[keyPath: list] = MatchList() },
                         print: { section in
                             section[keyPath: list].isEmpty ? nil : section[keyPath: list].terms.joined(separator: " ")
                         })
    }
}

extension InterfaceSettings {
    public static let sectionName = "Interface"
    public static var defaults: InterfaceSettings { InterfaceSettings() }

    /// Every `[Interface]` key, in the order `--check-config` prints those a section sets.
    /// Match keys accumulate their terms (an empty value empties the list, as in
    /// systemd); every other key is unset (nil) until a section sets it.
    public static let keys: [ConfigurationKey<InterfaceSettings>] = [
        globs("Name", \.match.name, "match the interface name"),
        types("Type", \.match.type, "match the detected type"),
        globs("Kind", \.match.kind, "match the netlink link kind (veth, bridge, wireguard, tun, vlan, ...)"),
        flag("Expensive", \.isExpensive, "paths through it are expensive (built in: yes for cellular)"),
        flag("Constrained", \.isConstrained, "paths through it are constrained"),
        flag("OnDemand", \.isOnDemand, "it comes up when traffic needs it (dial on demand)"),
        flag("Ignore", \.isIgnored, "never part of a path"),
        setting("SetType", .type, \.setType, range: "one of \(InterfaceType.writtenNamesDescription)",
                "report it as this type instead of the detected one",
                parse: { value in
                    InterfaceType(written: value).map(SettingValue.set)
                        ?? .invalid(expectation: "one of \(InterfaceType.writtenNamesDescription)")
                },
                print: \.rawValue),
    ]

    /// What a setting's text comes to: its value, or the outcome that refuses it.
    private enum SettingValue<Value> {
        case set(Value)
        case invalid(expectation: String)
    }

    /// A key that states one of `Stated`: reset to nil by an empty value, not printed
    /// while nil, and laid over an earlier section's value only where this section states it.
    private static func setting<Value: Sendable>(
        _ name: String, _ kind: ConfigurationKey<InterfaceSettings>.Kind,
        _ setting: WritableKeyPath<Stated, Value?> & Sendable, range: String, _ summary: String,
        parse: @escaping @Sendable (String) -> SettingValue<Value>,
        print: @escaping @Sendable (Value) -> String
    ) -> ConfigurationKey<InterfaceSettings> {
        ConfigurationKey(name, kind, range: range, summary,
                         parse: { rule, text in
                             switch parse(text) {
                             case .set(let value):
                                 rule.stated[keyPath: setting] = value
                                 return .set
                             case .invalid(let expectation):
                                 return .invalid(expectation: expectation)
                             }
                         },
                         reset: { $0.stated[keyPath: setting] = nil },
                         print: { $0.stated[keyPath: setting].map(print) },
                         overlay: { merged, later in
                             guard let value = later.stated[keyPath: setting] else { return }
                             merged.stated[keyPath: setting] = value
                         })
    }

    private static func flag(_ name: String, _ setting: WritableKeyPath<Stated, Bool?> & Sendable,
                             _ summary: String) -> ConfigurationKey<InterfaceSettings> {
        Self.setting(name, .bool, setting, range: SettingText.booleanWords, summary,
                     parse: { value in
                         SettingText.boolean(value).map(SettingValue.set)
                             ?? .invalid(expectation: "a boolean (\(SettingText.booleanWords))")
                     },
                     print: SettingText.word(for:))
    }
}
