import PathModel
import PathProtocol
import PathSocketClient
import SystemCalls

/// `pathctl route HOST...`: each HOST resolved with the system resolver, and the route to
/// every one of its addresses, IPv6 and IPv4, asked of pathd on one connection. A HOST
/// counts as reachable when any of its addresses has a satisfied route (as GLib's
/// `g_network_monitor_can_reach` counts it); the exit status is 0 when every HOST is.
enum RouteVerb: Verb {
    /// One HOST and what the resolver made of it: addresses, and for a literal with a
    /// zone ("fe80::1%eth0") that zone, sent as the request's `interface`.
    private struct Target {
        let host: String
        let addresses: Result<[IPAddress], HostResolver.Failure>
        var zone: String? = nil
    }

    static func run(_ options: PathctlOptions) throws(CommandError) -> PathctlExitStatus {
        // Resolved before connecting: a slow resolver holds no connection open.
        let targets = options.hosts.map { host in
            // An address literal needs no resolver, and its zone would be lost in one.
            if let (literal, zone) = RouteZone.split(host) {
                return Target(host: host, addresses: .success([literal]), zone: zone)
            }
            return Target(host: host, addresses: Result { () throws(HostResolver.Failure) in
                try HostResolver.addresses(of: host).compactMap { IPAddress(bytes: $0) }
            })
        }
        // Each answer, the hello and every route, within the deadline: the connection's
        // receive timeout bounds every wait for a line.
        let connection = try connectForAnswers(options.socketPath)
        var unresolved = false
        var unreachableHosts = false
        for target in targets {
            switch target.addresses {
            case .failure(let failure):
                unresolved = true
                writeErrorLine("pathctl: \(target.host): cannot resolve: \(failure)")
            case .success(let addresses) where addresses.isEmpty:
                unresolved = true
                writeErrorLine("pathctl: \(target.host): the resolver returned no address")
            case .success(let addresses):
                var usable = false
                for address in addresses {
                    let (report, line) = try ask(connection, about: address, zone: target.zone)
                    usable = usable || report.isUsable
                    if options.json {
                        echo(line)
                    } else {
                        let literal = target.zone.map { "\(address)%\($0)" } ?? address.description
                        let label = target.host == literal ? target.host : "\(target.host) (\(literal))"
                        writeOut("\(label): \(PeerText.oneLine(report.summary))\n")
                    }
                }
                if !usable { unreachableHosts = true }
            }
        }
        if unresolved { return .unresolved }
        return unreachableHosts ? .notSatisfied : .success
    }

    /// One request and its reply; an `error` line is a refusal (exit 4).
    private static func ask(_ connection: PathConnection, about address: IPAddress,
                            zone: String?) throws(CommandError) -> (RouteReport, [UInt8]) {
        do throws(PathClientError) {
            return try connection.routeWithLine(to: address, zone: zone)
        } catch {
            throw CommandError(error)
        }
    }
}
