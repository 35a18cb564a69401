// SPDX-License-Identifier: Apache-2.0
/// One line of pathd's path history: a change of the default path, or a mark that the
/// daemon started or stopped. Between a stop (or the last line of a run that ended
/// without one: a crash, `kill -9`) and the next start nothing is known: that gap is
/// never an outage.
public struct HistoryEntry: Hashable, Sendable {
    public enum Event: Hashable, Sendable {
        /// pathd started; what follows is its view.
        case started
        /// pathd stopped cleanly (SIGTERM, SIGINT).
        case stopped
        /// The default path became this (the first path of a run included).
        case change(PathChange)
        /// The route to a host of `[Watch]` became this: satisfied when any of its
        /// addresses has a usable route (`interfaces`: theirs), else why not.
        case route(host: String, PathChange)
        /// An event a newer pathd recorded, by its name (docs/PROTOCOL.md, "Version
        /// rule"); what it means is unknown here, so a summary passes over it.
        case unrecognized(String)
    }

    public var time: Timestamp
    public var event: Event

    public init(time: Timestamp, event: Event) {
        self.time = time
        self.event = event
    }

    /// The event's name on the wire and in the file: `started`, `stopped`, `change`.
    public var eventName: String {
        switch event {
        case .started: "started"
        case .stopped: "stopped"
        case .change: "change"
        case .route: "route"
        case .unrecognized(let name): name
        }
    }

    /// `entries` as the history of the route to `host` (`pathctl history --route`): its
    /// changes as changes, the start and stop marks as they are, nothing else.
    public static func route(to host: String, in entries: [HistoryEntry]) -> [HistoryEntry] {
        entries.compactMap { entry in
            switch entry.event {
            case .started, .stopped: entry
            case .route(let name, let change) where name == host: HistoryEntry(time: entry.time, event: .change(change))
            case .route, .change, .unrecognized: nil
            }
        }
    }
}

/// What the history keeps of a path: enough to say what it was and why, and where it
/// stood in the published sequence.
public struct PathChange: Hashable, Sendable {
    public var status: PathStatus
    public var unsatisfiedReason: UnsatisfiedReason?
    public var reasonInterface: String?
    /// The names of the interfaces that carried the path, the preferred one first.
    public var interfaces: [String]
    public var generation: Generation
    /// The default criteria's sequence number of the path line published for it (a
    /// watched route's: the count of its host's changes).
    public var sequence: UInt64
    /// The reason in words as recorded, when it is not a path's (a watched route's: "no
    /// route to 192.0.2.10", "cannot resolve: Name or service not known").
    public var recordedExplanation: String?
    /// The network the path's first interface was on, when identified: its ID and its
    /// configured name, never the facts behind the ID.
    public var network: Network?

    /// A network as the history names it.
    public struct Network: Hashable, Sendable {
        public var id: NetworkID
        /// `Name=` of the `[Network]` section that named it then.
        public var name: String?

        public init(id: NetworkID, name: String? = nil) {
            self.id = id
            self.name = name
        }

        /// Its name, else the first 12 digits of its ID (as `LinkNetwork.summary`).
        public var label: String { name ?? String(id.description.prefix(12)) }
    }

    public init(status: PathStatus, unsatisfiedReason: UnsatisfiedReason? = nil, reasonInterface: String? = nil,
                interfaces: [String] = [], generation: Generation, sequence: UInt64) {
        self.status = status
        self.unsatisfiedReason = unsatisfiedReason
        self.reasonInterface = reasonInterface
        self.interfaces = interfaces
        self.generation = generation
        self.sequence = sequence
    }

    public init(_ path: Path, generation: Generation, sequence: UInt64) {
        self.init(status: path.status, unsatisfiedReason: path.unsatisfiedReason, reasonInterface: path.reasonInterface,
                  interfaces: path.availableInterfaces.map(\.name), generation: generation, sequence: sequence)
        if let network = path.network, network.state == .identified, let id = network.id {
            self.network = Network(id: id, name: network.name)
        }
    }

    /// The reason in words ("no carrier on eth0 (cable unplugged or peer down)"); nil
    /// unless unsatisfied.
    public var explanation: String? {
        guard status == .unsatisfied else { return nil }
        return recordedExplanation ?? unsatisfiedReason?.explanation(interface: reasonInterface) ?? "unknown reason"
    }
}
