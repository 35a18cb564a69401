// SPDX-License-Identifier: Apache-2.0
import PathModel

/// A section of pathd.conf whose keys are declared in one table, `keys`: parsing,
/// validation messages, `--check-config`'s rendering, pathd's flags and `--help`, and the
/// test that holds pathd.conf(5) and the example pathd.conf to the table all read it.
public protocol ConfigurationSection: Sendable {
    /// The section's name in brackets: `Daemon` for `[Daemon]`.
    static var sectionName: String { get }
    /// Every key, in the order `--check-config` prints them.
    static var keys: [ConfigurationKey<Self>] { get }
    /// The section with no key set: every key at its built-in default.
    static var defaults: Self { get }
}

/// A section that may appear any number of times, each a rule of its own that knows
/// where it starts (`[Interface]`, `[Network]`).
public protocol RepeatedSection: ConfigurationSection {
    init(origin: String)
}

/// One key of a section: its name, the kind of value it takes (as pathd.conf(5) names
/// it), its range, a one-line description, whether a reload applies it, and how it
/// parses, resets (an empty value) and prints. Its default is what it prints for the
/// section's `defaults`.
public struct ConfigurationKey<Settings>: Sendable {
    /// The kind of value, spelled as pathd.conf(5)'s `.It Cm Key= Ns Ar kind`.
    public enum Kind: String, Sendable, CaseIterable {
        case path, address, count, size, level, bool, globs, types, type, url, text, hex, span, hosts, ids, macs,
            addresses, prefixes, domains, hints, name
    }

    public let name: String
    public let kind: Kind
    /// The values accepted, when the kind alone does not say (`1 to 1000000`).
    public let range: String?
    /// One line: what the key sets.
    public let summary: String
    /// Applied by a reload; otherwise a change needs a restart (and a reload says so).
    public let isReloadable: Bool
    let parse: @Sendable (inout Settings, String) -> SettingOutcome
    let reset: @Sendable (inout Settings) -> Void
    /// The value as `--check-config` prints it; nil when the key is not printed (an
    /// `[Interface]` key the section does not set).
    let printed: @Sendable (Settings) -> String?
    /// The default as pathd.conf(5) and the example file write it, when that is not
    /// what `--check-config` prints (`256K`, printed as 262144).
    let documented: (@Sendable (Settings) -> String)?
    /// For a section that may appear several times and apply together (`[Interface]`):
    /// lays a later section's value of the key over the merged earlier ones. Nil for a
    /// key that does not merge (a match key, or a section that appears once).
    let overlay: (@Sendable (_ merged: inout Settings, _ later: Settings) -> Void)?
    /// What an empty value stands for, when that is more than "none" (`Socket=`: the
    /// per-user default): `--check-config` says it beside the empty key.
    public private(set) var emptyMeaning: String?
    /// What the example configuration says of the key beyond its summary.
    public private(set) var note: String?

    /// `package`: a section's table may be declared beside the code that reads it, in
    /// another module of the package.
    package init(_ name: String, _ kind: Kind, range: String? = nil, isReloadable: Bool = false, _ summary: String,
                 parse: @escaping @Sendable (inout Settings, String) -> SettingOutcome,
                 reset: @escaping @Sendable (inout Settings) -> Void,
                 print printed: @escaping @Sendable (Settings) -> String?,
                 document documented: (@Sendable (Settings) -> String)? = nil,
                 overlay: (@Sendable (inout Settings, Settings) -> Void)? = nil) {
        self.name = name
        self.kind = kind
        self.range = range
        self.summary = summary
        self.isReloadable = isReloadable
        self.parse = parse
        self.reset = reset
        self.printed = printed
        self.documented = documented
        self.overlay = overlay
    }

    /// The value as `--check-config` prints it, empty when unset.
    public func render(_ settings: Settings) -> String { printed(settings) ?? "" }

    /// This key, saying what its empty value stands for (`emptyMeaning`).
    package func meaningWhenEmpty(_ meaning: String) -> Self {
        var key = self
        key.emptyMeaning = meaning
        return key
    }

    /// This key, with what the example configuration says of it beyond its summary (`note`).
    package func noting(_ note: String) -> Self {
        var key = self
        key.note = note
        return key
    }
}

extension ConfigurationKey where Settings: ConfigurationSection {
    /// The built-in default as pathd.conf(5) and packaging/pathd.conf write it; empty
    /// when the key is unset by default.
    public var documentedDefault: String {
        documented?(Settings.defaults) ?? render(Settings.defaults)
    }
}

/// What setting one key came to.
public enum SettingOutcome: Equatable, Sendable {
    case set
    /// The value is not what the key takes; `expectation` says what it takes.
    case invalid(expectation: String)
    /// The value is refused with this whole message (it names a part of the value).
    case refused(String)
    case unknownKey
}

extension ConfigurationSection {
    /// Sets one key from its text as pathd.conf(5) describes; an empty value restores
    /// the default. Changes nothing unless the outcome is `.set`.
    public mutating func set(_ key: String, to value: String) -> SettingOutcome {
        guard let entry = Self.keys.first(where: { $0.name == key }) else { return .unknownKey }
        if value.isEmpty {
            entry.reset(&self)
            return .set
        }
        var copy = self
        let outcome = entry.parse(&copy, value)
        if outcome == .set { self = copy }
        return outcome
    }

    /// The section's keys that are set, as `Key=value` lines.
    public var renderedLines: [String] {
        Self.keys.compactMap { key in key.printed(self).map { "\(key.name)=\($0)" } }
    }
}
