import PathModel
import PathProtocol

/// `pathctl monitor`: subscribe and print one line per change until interrupted, across
/// restarts of pathd (see `ReconnectingSubscription`); with `--route`, `RouteWatchVerbs`.
enum MonitorVerb: Verb {
    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
        if options.route { return try RouteWatchVerbs.monitor(options) }
        let subscription = ReconnectingSubscription(socketPath: options.socketPath,
                                                    request: Request(.subscribe(options.criteria)))
        return try subscription.runToEnd { message, line, _ in
            switch message {
            case .path(let update, _):
                if options.json { echo(line) } else { writeOut(PathFormatting.monitorLine(update)) }
            case .resync(let reason, let generation, _):
                printResync(reason: reason, generation: generation, line: line, json: options.json)
            case .error:
                if options.json { echo(line) }
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
