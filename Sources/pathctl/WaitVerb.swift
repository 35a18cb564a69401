// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathProtocol

/// `pathctl wait`: block until the path is satisfied (under the criteria) and meets the
/// requirements (`--ipv4`, `--ipv6`, `--dns`, `--internet`), like nm-online or
/// systemd-networkd-wait-online, but following policy routing and VPNs as traffic would.
/// Exit 0 once satisfied, 1 when `--timeout` (default 30 s) passes first, 3 when it passes
/// before any pathd said hello; `--timeout 0` checks once, waiting for pathd's answer as
/// `status` does. A restart of pathd meanwhile is waited out. With `--route`,
/// `RouteWatchVerbs`.
struct WaitVerb: Verb, Equatable {
    /// Without `--timeout`, `wait` gives up after this long, as nm-online does.
    static let defaultTimeout: Duration = .seconds(30)
    static let timeout = CommandOption(OptionSpec("--timeout", value: "SECONDS", help: """
        wait: give up after SECONDS (decimal, default \(defaultTimeout.components.seconds);
        0 checks once)
        """), brief: "give up after this many seconds (default \(defaultTimeout.components.seconds); 0 checks once)")
    static let command = CommandSpec<any Verb.Type>(
        "wait", summary: "wait until the path (or the route to every HOST) is satisfied",
        options: CriteriaOptions.options + [timeout, RouteOption.route] + PathRequirements.options.map(\.option),
        operands: RouteOption.hosts, action: Self.self)

    var criteria: Criteria
    var requirements: PathRequirements
    /// `--timeout`; zero checks once.
    var timeout: Duration
    /// `--route HOST...`: the routes to these instead of the path.
    var routeHosts: [String]?

    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError) {
        routeHosts = try RouteOption.hosts(in: line, operands: operands,
                                           refusing: CriteriaOptions.options + PathRequirements.options.map(\.option))
        requirements = PathRequirements(given: line)
        timeout = try line.value(Self.timeout).map { text throws(UsageError) in
            try OptionValue.seconds(text, for: Self.timeout.name)
        } ?? Self.defaultTimeout
        criteria = try CriteriaOptions.criteria(in: line)
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        if let routeHosts { return try RouteWatchVerbs.wait(routeHosts, timeout: timeout, global) }
        let checkOnce = timeout == .zero
        let subscription = ReconnectingSubscription(
            socketPath: global.socketPath, request: Request(.subscribe(.path(criteria))),
            timeout: checkOnce ? answerDeadline : timeout, reconnects: !checkOnce)
        let outcome = try subscription.run { message, line in
            guard case .path(let update, _) = message else { return nil }
            guard let why = requirements.unmet(by: update) else {
                if global.json { echo(line) }
                return .success
            }
            if checkOnce {
                if global.json { echo(line) }
                writeErrorLine("pathctl: \(why)")
                return .notSatisfied
            }
            return nil
        }
        return try Self.conclude(outcome, timeout: timeout, waitingFor: requirements.goal)
    }

    /// The exit status of a wait that ended with `outcome` (also `wait --route`'s):
    /// a timeout before any hello is exit 3, after one exit 1, waiting for `goal`.
    /// `timeout` zero checked once.
    static func conclude(_ outcome: ReconnectingSubscription<Timeout>.Outcome, timeout: Duration,
                         waitingFor goal: @autoclosure () -> String) throws(CommandError) -> PathctlExitStatus {
        switch outcome {
        case .finished(let status):
            return status
        case .timedOut(let passed) where timeout == .zero:
            throw .noAnswer(socketPath: passed.socketPath, within: answerDeadline)
        case .timedOut(let passed) where !passed.saidHello:
            // Not "not satisfied": nothing is known of the path.
            writeErrorLine("pathctl: timed out after \(timeout.decimalSeconds) s: "
                + "pathd at \(passed.socketPath ?? "its socket") never said hello")
            return .unreachable
        case .timedOut:
            writeErrorLine("pathctl: timed out after \(timeout.decimalSeconds) s waiting for \(goal())")
            return .notSatisfied
        }
    }
}
