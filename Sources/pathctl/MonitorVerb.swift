// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathProtocol

/// `pathctl monitor`: subscribe and print one line per change until interrupted, across
/// restarts of pathd (see `ReconnectingSubscription`); with `--route`, `RouteWatchVerbs`.
struct MonitorVerb: Verb, Equatable {
    static let command = CommandSpec<any Verb.Type>(
        "monitor", summary: "print the path (or the route to HOST...) and every change",
        options: CriteriaOptions.options + [RouteOption.route], operands: RouteOption.hosts, action: Self.self)

    var criteria: Criteria
    /// `--route HOST...`: the routes to these instead of the path.
    var routeHosts: [String]?

    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError) {
        routeHosts = try RouteOption.hosts(in: line, operands: operands, refusing: CriteriaOptions.options)
        criteria = try CriteriaOptions.criteria(in: line)
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        if let routeHosts { return try RouteWatchVerbs.monitor(routeHosts, global) }
        let subscription = ReconnectingSubscription(socketPath: global.socketPath,
                                                    request: Request(.subscribe(.path(criteria))))
        return try subscription.runToEnd { message, line, _ in
            switch message {
            case .path(let update, _):
                if global.json { echo(line) } else { writeOut(PathFormatting.monitorLine(update)) }
            case .resync(let reason, let generation, _):
                Self.printResync(reason: reason, generation: generation, line: line, json: global.json)
            case .error:
                if global.json { echo(line) }
            case .route:
                break  // a path subscription gets no route lines
            }
            return nil
        }
    }

    /// A resync, as the daemon's line or in words.
    static func printResync(reason: String, generation: Generation, line: [UInt8], json: Bool) {
        if json {
            echo(line)
        } else {
            writeOut("\(PathFormatting.timestamp()) resync (generation \(generation)): \(PeerText.oneLine(reason))\n")
        }
    }
}
