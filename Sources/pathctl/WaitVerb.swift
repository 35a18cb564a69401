import PathProtocol

/// `pathctl wait`: block until the path is satisfied (under the criteria) and meets the
/// requirements (`--ipv4`, `--ipv6`, `--dns`, `--internet`), like nm-online or
/// systemd-networkd-wait-online, but following policy routing and VPNs as traffic would.
/// Exit 0 once satisfied, 1 when `--timeout` (default 30 s) passes first, 3 when it passes
/// before any pathd said hello; `--timeout 0` checks once, waiting for pathd's answer as
/// `status` does. A restart of pathd meanwhile is waited out. With `--route`,
/// `RouteWatchVerbs`.
enum WaitVerb: Verb {
    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
        if options.route { return try RouteWatchVerbs.wait(options) }
        let checkOnce = options.timeout == .zero
        let subscription = ReconnectingSubscription(
            socketPath: options.socketPath, request: Request(.subscribe(options.criteria)),
            timeout: checkOnce ? PathctlOptions.answerDeadline : options.timeout, reconnects: !checkOnce)
        let outcome = try subscription.run { message, line in
            guard case .path(let update, _) = message else { return nil }
            guard let why = options.requirements.unmet(by: update) else {
                if options.json { echo(line) }
                return .success
            }
            if checkOnce {
                if options.json { echo(line) }
                writeErrorLine("pathctl: \(why)")
                return .notSatisfied
            }
            return nil
        }
        return try conclude(outcome, options, checkOnce: checkOnce, waitingFor: options.requirements.goal)
    }

    /// The exit status of a wait that ended with `outcome` (also `wait --route`'s):
    /// a timeout before any hello is exit 3, after one exit 1, waiting for `goal`.
    static func conclude(_ outcome: ReconnectingSubscription<Timeout>.Outcome, _ options: PathctlOptions,
                         checkOnce: Bool, waitingFor goal: @autoclosure () -> String) throws(CommandError) -> PathctlExitStatus {
        switch outcome {
        case .finished(let status):
            return status
        case .timedOut(let timeout) where checkOnce:
            throw .noAnswer(socketPath: timeout.socketPath, within: PathctlOptions.answerDeadline)
        case .timedOut(let timeout) where !timeout.saidHello:
            // Not "not satisfied": nothing is known of the path.
            writeErrorLine("pathctl: timed out after \(options.timeout.decimalSeconds) s: "
                + "pathd at \(timeout.socketPath ?? "its socket") never said hello")
            return .unreachable
        case .timedOut:
            writeErrorLine("pathctl: timed out after \(options.timeout.decimalSeconds) s waiting for \(goal())")
            return .notSatisfied
        }
    }
}
