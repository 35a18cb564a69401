// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import Dispatch
import Glibc
import PathModel
import PathProtocol
import SystemCalls

/// `pathctl run CRITERIA -- COMMAND [ARG...]`: waits until the path meets the criteria
/// (and requirements), runs the command, stops it when they stop holding (SIGTERM, then
/// SIGKILL after `--grace`), and ends as the command ended, or with `networkChanged`
/// when it stopped it; with `--restart` it runs the command again when they hold again
/// instead. The rules are `RunSupervisor`'s; this is the wiring: the subscription on a
/// thread of its own (a `ReconnectingSubscription`, so a restart of pathd is ridden
/// out), the command (`SpawnedCommand`, SIGKILL as its parent-death signal) and the
/// signals (`RunSignals`) on the main thread.
struct RunVerb: Verb, Equatable {
    /// Without `--grace`: SIGKILL follows SIGTERM after this long (docker stop's 10 s:
    /// time for a backup to write its state and drop its lock, well inside systemd's
    /// 90 s stop timeout, so pathctl's SIGKILL comes first).
    static let defaultGrace: Duration = .seconds(10)
    static let restart = CommandOption(OptionSpec("--restart", help: """
        run: run the command again whenever the criteria hold
        again after it was stopped
        """), brief: "run the command again when the criteria hold again")
    static let grace = CommandOption(OptionSpec("--grace", value: "SECONDS", help: """
        run: SIGKILL the command SECONDS after the SIGTERM that
        stops it (decimal, default \(defaultGrace.components.seconds))
        """), brief: "SIGKILL the command this long after SIGTERM (default \(defaultGrace.components.seconds))")
    static let commandLine = CommandOperands.commandLine("COMMAND", description: "the command to run, after --")
    static let command = CommandSpec<any Verb.Type>(
        "run", summary: "run COMMAND while the path meets the criteria; stop it when it does not",
        options: CriteriaOptions.options + [restart, grace] + PathRequirements.options.map(\.option),
        operands: commandLine, action: Self.self)

    var criteria: Criteria
    var requirements: PathRequirements
    var restarts: Bool
    var grace: Duration
    /// The command and its arguments.
    var arguments: [String]

    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError) {
        criteria = try CriteriaOptions.criteria(in: line)
        requirements = PathRequirements(given: line)
        restarts = line.has(Self.restart)
        grace = try line.value(Self.grace).map { text throws(UsageError) in
            try OptionValue.seconds(text, for: Self.grace.name)
        } ?? Self.defaultGrace
        arguments = operands
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        // First: no thread exists yet, so every later one inherits the mask.
        let signals = RunSignals()
        let (socketPath, request, requirements) = (global.socketPath, Request(.subscribe(.path(criteria))),
                                                   requirements)
        // A queue of its own: its one worker blocks reading pathd's lines for as long
        // as pathctl runs.
        DispatchQueue(label: "pathctl.run.subscription").async {
            let subscription = ReconnectingSubscription(socketPath: socketPath, request: request)
            do throws(CommandError) {
                _ = try subscription.runToEnd { message, _, _ in
                    if case .path(let update, _) = message {
                        let unmet = requirements.unmet(by: update)
                        signals.post(.path(holds: unmet == nil, why: unmet ?? PathFormatting.headline(update)))
                    }
                    return nil
                }
            } catch {
                signals.post(.pathdLost(message: error.message, status: error.exitStatus.rawValue))
            }
        }

        var supervisor = RunSupervisor(command: arguments[0], restarts: restarts, grace: grace)
        var command: SpawnedCommand?
        var graceEnds: ContinuousClock.Instant?
        while true {
            for event in signals.next(until: supervisor.isInGracePeriod ? graceEnds : nil, command: command) {
                if case .commandEnded = event { command = nil }
                for action in supervisor.handle(event) {
                    switch action {
                    case .start:
                        command = start(signals)
                    case .signal(let number):
                        if number == SIGTERM, supervisor.isInGracePeriod { graceEnds = .now + grace }
                        if let error = command?.signal(number) {
                            writeErrorLine("pathctl: cannot send signal \(number) to \(arguments[0]): \(error)")
                        }
                    case .say(let text):
                        writeErrorLine("pathctl: \(text)", level: .notice)
                    case .end(let outcome):
                        RunSignals.end(outcome)
                    }
                }
            }
        }
    }

    /// Starts the command; a command that cannot run ends pathctl as a shell would end
    /// (127 not found, 126 not executable).
    private func start(_ signals: RunSignals) -> SpawnedCommand {
        do throws(SpawnedCommand.SpawnError) {
            return try SpawnedCommand.spawn(arguments, signalMask: signals.originalMask, parentDeathSignal: SIGKILL)
        } catch {
            writeErrorLine("pathctl: \(error)")
            exit(error.shellStatus)
        }
    }
}
