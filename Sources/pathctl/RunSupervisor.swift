// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemCalls

/// What `pathctl run` does about each event, as a value with no process, thread or clock
/// (RunVerb runs it): start the command when the criteria hold, stop it (SIGTERM, then
/// SIGKILL when the grace period ends) when they stop holding, start it again when they
/// hold again with `--restart`, pass signals to it, and end as it ended. So each rule of
/// pathctl(1)'s `run` is tested by a sequence of events (RunSupervisorTests).
struct RunSupervisor: Equatable {
    enum Event: Equatable {
        /// A path from pathd: whether it meets the criteria and requirements, and in
        /// words why not (or, when it does, the path's headline).
        case path(holds: Bool, why: String)
        /// The command ended.
        case commandEnded(SpawnedCommand.Termination)
        /// A signal to pathctl. `fromTerminal`: the kernel sent it to the terminal's
        /// foreground process group, so the command, in pathctl's group, has it already.
        case signal(Int32, fromTerminal: Bool)
        /// The grace period after the SIGTERM ran out.
        case graceEnded
        /// pathd is gone for good (unreachable for `ReconnectingSubscription`'s window, or
        /// it refused): `message` says how, `status` is the exit status it comes to.
        case pathdLost(message: String, status: Int32)
    }

    enum Action: Equatable {
        /// Start the command.
        case start
        /// Send the command this signal.
        case signal(Int32)
        /// A line on standard error, after "pathctl: ".
        case say(String)
        /// End pathctl so.
        case end(Outcome)
    }

    enum Outcome: Hashable {
        case status(Int32)
        /// By this signal, as the command ended (or as pathctl would have without a
        /// command to pass it to).
        case signal(Int32)

        /// How the command's own end is passed on, untouched.
        init(_ termination: SpawnedCommand.Termination) {
            switch termination {
            case .exited(let status): self = .status(status)
            case .killed(let signal): self = .signal(signal)
            }
        }
    }

    /// Why a command is being stopped.
    enum StopCause: Equatable {
        /// The criteria stopped holding: exit `networkChanged`, or with `--restart` wait.
        case pathChanged
        /// pathd is gone: end with its status once the command ended.
        case pathdLost(status: Int32)
    }

    enum Phase: Equatable {
        /// No command runs. `told`: the reason for waiting was said already.
        case waiting(told: Bool)
        case running
        /// SIGTERM sent; `killed`: SIGKILL too, after the grace period.
        case stopping(StopCause, killed: Bool)
        case ended
    }

    /// The command's name, for messages.
    let command: String
    /// `--restart`.
    let restarts: Bool
    /// `--grace`, for messages (the clock is RunVerb's).
    let grace: Duration
    private(set) var phase = Phase.waiting(told: false)
    /// Whether the latest path holds (false before the first), and its words.
    private(set) var holds = false
    private var why = ""
    /// Whether the command was started once.
    private var started = false

    init(command: String, restarts: Bool, grace: Duration) {
        self.command = command
        self.restarts = restarts
        self.grace = grace
    }

    /// Whether the grace period runs: SIGTERM sent, SIGKILL not yet.
    var isInGracePeriod: Bool {
        if case .stopping(_, killed: false) = phase { return true }
        return false
    }

    /// What `event` makes pathctl do, in order.
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .path(let holds, let why): return path(holds: holds, why: why)
        case .commandEnded(let termination): return commandEnded(termination)
        case .signal(let number, let fromTerminal): return signal(number, fromTerminal: fromTerminal)
        case .graceEnded: return graceEnded()
        case .pathdLost(let message, let status): return pathdLost(message, status: status)
        }
    }

    private mutating func path(holds: Bool, why: String) -> [Action] {
        self.holds = holds
        self.why = why
        switch phase {
        case .waiting(let told) where holds:
            // A start nobody waited for says nothing: the command's own output is what
            // the user wants to see.
            return told ? [.say(holdingAgain), start()] : [start()]
        case .waiting(told: false):
            phase = .waiting(told: true)
            return [.say("waiting: \(why)")]
        case .running where !holds:
            phase = .stopping(.pathChanged, killed: false)
            return [.say("\(why); stopping \(command) (SIGTERM)"), .signal(SIGTERM)]
        case .waiting, .running, .stopping, .ended:
            return []
        }
    }

    private mutating func commandEnded(_ termination: SpawnedCommand.Termination) -> [Action] {
        switch phase {
        case .running:
            phase = .ended
            return [.end(Outcome(termination))]
        case .stopping(.pathdLost(let status), _):
            phase = .ended
            return [.end(.status(status))]
        case .stopping(.pathChanged, _) where !restarts:
            phase = .ended
            return [.end(.status(PathctlExitStatus.networkChanged.rawValue))]
        case .stopping(.pathChanged, _):
            phase = .waiting(told: true)
            return holds ? [.say(holdingAgain), start()] : []
        case .waiting, .ended:
            return []
        }
    }

    private mutating func start() -> Action {
        phase = .running
        started = true
        return .start
    }

    /// The line before a start that was waited for.
    private var holdingAgain: String {
        "the criteria hold\(started ? " again" : "") (\(why)); starting \(command)"
    }

    private mutating func signal(_ number: Int32, fromTerminal: Bool) -> [Action] {
        switch phase {
        case .running, .stopping:
            return fromTerminal ? [] : [.signal(number)]
        case .waiting:
            phase = .ended
            return [.end(.signal(number))]
        case .ended:
            return []
        }
    }

    private mutating func graceEnded() -> [Action] {
        guard case .stopping(let cause, killed: false) = phase else { return [] }
        phase = .stopping(cause, killed: true)
        return [.say("\(command) still runs \(grace.decimalSeconds) s after SIGTERM; sending SIGKILL"),
                .signal(SIGKILL)]
    }

    private mutating func pathdLost(_ message: String, status: Int32) -> [Action] {
        switch phase {
        case .waiting:
            phase = .ended
            return [.say(message), .end(.status(status))]
        case .running:
            phase = .stopping(.pathdLost(status: status), killed: false)
            return [.say("\(message); stopping \(command) (SIGTERM)"), .signal(SIGTERM)]
        case .stopping(_, let killed):
            phase = .stopping(.pathdLost(status: status), killed: killed)
            return [.say(message)]
        case .ended:
            return []
        }
    }
}
