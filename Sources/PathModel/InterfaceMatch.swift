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
public struct InterfaceRule: Hashable, Sendable {
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
