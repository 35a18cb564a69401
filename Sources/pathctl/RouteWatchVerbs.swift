// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// `monitor --route HOST...` and `wait --route HOST...`: the route to each address of
/// each HOST, followed on one connection across restarts of pathd (`RouteWatchList`,
/// `ReconnectingSubscription`); the names are resolved again whenever the path changes.
enum RouteWatchVerbs {
    /// `monitor --route`: one line per answer and per change, until interrupted.
    static func monitor(_ hosts: [String], _ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        let watch = RouteWatchList(hosts)
        for host in watch.hosts {
            if let reason = host.unresolvedReason {
                writeErrorLine("pathctl: \(host.host): \(reason); resolved again when the path changes")
            }
        }
        let subscription = ReconnectingSubscription(socketPath: global.socketPath, requests: watch.requests)
        return try subscription.runToEnd { message, line, send in
            switch message {
            case .route(let update, let id):
                guard let key = watch.received(update, id: id, line: line) else { return nil }
                if global.json {
                    echo(line)
                } else {
                    let label = watch.hosts[key.host].label(for: key.address)
                    writeOut("\(PathFormatting.timestamp()) \(label): \(PeerText.oneLine(update.report.summary))\n")
                }
            case .path(_, let id) where id == RouteWatchList.pathID:
                let (requests, changedHosts) = watch.pathLine()
                for request in requests where !send(request) { break }
                guard !global.json else { return nil }
                for index in changedHosts {
                    let host = watch.hosts[index]
                    let now = host.unresolvedReason ?? "resolved to "
                        + host.resolved.map(\.description).joined(separator: ", ")
                    writeOut("\(PathFormatting.timestamp()) \(host.host): \(PeerText.oneLine(now))\n")
                }
            case .path:
                break
            case .resync(let reason, let generation, let id):
                // One resync per subscription: said once, by the path's.
                guard id == RouteWatchList.pathID else { return nil }
                MonitorVerb.printResync(reason: reason, generation: generation, line: line, json: global.json)
            case .error:
                if global.json { echo(line) }
            }
            return nil
        }
    }

    /// `wait --route`: exit 0 once every HOST has an address with a satisfied route; 1
    /// when `--timeout` passes first (saying why for each HOST), 3 when it passes before
    /// any pathd said hello. `--timeout 0` checks once: 1 when not usable, 5 when a HOST
    /// did not resolve.
    static func wait(_ hosts: [String], timeout: Duration,
                     _ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        let checkOnce = timeout == .zero
        let watch = RouteWatchList(hosts)
        if checkOnce, watch.hosts.contains(where: { $0.unresolvedReason != nil }) {
            for host in watch.hosts {
                if let reason = host.unresolvedReason { writeErrorLine("pathctl: \(host.host): \(reason)") }
            }
            return .unresolved
        }
        let subscription = ReconnectingSubscription(
            socketPath: global.socketPath, requests: watch.requests,
            timeout: checkOnce ? answerDeadline : timeout, reconnects: !checkOnce)
        let outcome = try subscription.run { message, line, send in
            switch message {
            case .route(let update, let id):
                guard watch.received(update, id: id, line: line) != nil else { return nil }
            case .path(_, let id) where id == RouteWatchList.pathID && !checkOnce:
                for request in watch.pathLine().requests where !send(request) { break }
            default:
                return nil
            }
            if watch.isUsable {
                if global.json { watch.latestLines.forEach(echo) }
                return .success
            }
            if checkOnce && watch.isAnswered {
                if global.json { watch.latestLines.forEach(echo) }
                for why in watch.unmet { writeErrorLine("pathctl: \(why)") }
                return .notSatisfied
            }
            return nil
        }
        return try WaitVerb.conclude(outcome, timeout: timeout,
                                     waitingFor: "the route to " + watch.unmet.joined(separator: "; "))
    }
}
