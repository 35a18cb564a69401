import PathProtocol

/// `pathctl wait`: block until the path is satisfied (under the criteria) and meets the
/// requirements (`--ipv4`, `--ipv6`, `--dns`, `--internet`), like nm-online or
/// systemd-networkd-wait-online, but following policy routing and VPNs as traffic
/// would. Exit 0 once satisfied, 1 when `--timeout` (default 30 s) passes first;
/// `--timeout 0` checks once. A restart of pathd meanwhile is waited out.
enum WaitVerb: Verb {
    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
        let checkOnce = options.timeout == .zero
        let subscription = ReconnectingSubscription(socketPath: options.socketPath,
                                                    request: Request(.subscribe(options.criteria)),
                                        timeout: checkOnce ? nil : options.timeout,
                                        reconnects: !checkOnce)
        let outcome = try subscription.run { message, line in
            guard case .path(let update, _) = message else { return nil }
            guard let why = options.requirements.unmet(by: update) else {
                if options.json { echo(line) }
                return .success
            }
            if checkOnce {
                if options.json { echo(line) }
                writeError("pathctl: \(why)\n")
                return .notSatisfied
            }
            return nil
        }
        switch outcome {
        case .finished(let status):
            return status
        case .timedOut:
            let goal = options.requirements.goal
            writeError("pathctl: timed out after \(options.timeout.seconds) s waiting for \(goal)\n")
            return .notSatisfied
        }
    }
}
