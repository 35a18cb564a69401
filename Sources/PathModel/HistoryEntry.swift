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
        case .unrecognized(let name): name
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
    /// The default criteria's sequence number of the path line published for it.
    public var sequence: UInt64

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
    }

    /// The reason in words ("no carrier on eth0 (cable unplugged or peer down)"); nil
    /// unless unsatisfied.
    public var explanation: String? {
        guard status == .unsatisfied else { return nil }
        return unsatisfiedReason?.explanation(interface: reasonInterface) ?? "unknown reason"
    }
}
