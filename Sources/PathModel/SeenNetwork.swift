// SPDX-License-Identifier: Apache-2.0
/// A network pathd has seen a link on: what the `networks` request lists and the state
/// directory keeps (`networks.jsonl`), bounded (`NetworkRegistry`, PathDaemon). It holds
/// the raw facts the ID was computed from, so it goes to privileged peers only.
public struct SeenNetwork: Hashable, Sendable {
    public var id: NetworkID
    /// `Name=` of the `[Network]` section that named it when it was last seen.
    public var name: String?
    /// The facts its ID hashes (`NetworkFacts`, with the anchor): the gateway's MAC,
    /// address, prefix. Raw: for privileged peers only.
    public var facts: NetworkFacts
    /// The links it was seen on, the latest first, at most `maximumInterfaces`.
    public var interfaces: [String]
    /// The DNS search domains its hints gave when it was last seen.
    public var domains: [String]
    /// When it was first and last seen, wall clock (seconds since the epoch); `lastSeen`
    /// is when it left the last link it was on, or (while `isCurrent`) the last time
    /// pathd looked.
    public var firstSeen: Duration
    public var lastSeen: Duration
    /// Whether a link of the default path is on it now.
    public var isCurrent: Bool

    /// Links remembered per network: a laptop meets its home network on Wi-Fi and on a
    /// dock's Ethernet, rarely more.
    public static let maximumInterfaces = 4

    public init(id: NetworkID, name: String? = nil, facts: NetworkFacts, interfaces: [String] = [],
                domains: [String] = [], firstSeen: Duration, lastSeen: Duration, isCurrent: Bool = false) {
        self.id = id
        self.name = name
        self.facts = facts
        self.interfaces = interfaces
        self.domains = domains
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.isCurrent = isCurrent
    }

    /// What to call it for a person: its name, else the first 12 digits of its ID (as
    /// `LinkNetwork.summary` does).
    public var label: String { name ?? String(id.description.prefix(12)) }
}
