// SPDX-License-Identifier: Apache-2.0
/// Whether the daemon's history survives a restart, and if not why (the `history`
/// reply's `persistent` and `notPersistentBecause`, docs/PROTOCOL.md).
public enum HistoryPersistence: Hashable, Sendable {
    /// Every entry is in the history file.
    case persistent
    /// Entries are kept in memory only (some or all of them); `because` says why in
    /// words for a person, nil from a daemon that did not say.
    case inMemory(because: String?)

    public var isPersistent: Bool { self == .persistent }
}
