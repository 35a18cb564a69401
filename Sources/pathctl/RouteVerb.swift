// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathProtocol
import PathSocketClient
import SystemCalls

/// `pathctl route HOST...`: each HOST resolved with the system resolver, and the route to
/// every one of its addresses, IPv6 and IPv4, asked of pathd on one connection. A HOST
/// counts as reachable when any of its addresses has a satisfied route (as GLib's
/// `g_network_monitor_can_reach` counts it); the exit status is 0 when every HOST is.
struct RouteVerb: Verb, Equatable {
    static let command = CommandSpec<any Verb.Type>(
        "route", summary: "show the route to each address of HOST... and whether it is usable",
        operands: CommandOperands("HOST", description: "a name or an IP address", completion: .hostnames),
        action: Self.self)

    /// The names or addresses asked about, in order.
    var hosts: [String]

    init(_ line: ParsedCommandLine, operands: [String]) {
        hosts = operands
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        // Resolved before connecting: a slow resolver holds no connection open.
        let targets = hosts.map { RouteHost($0) }
        // Each answer, the hello and every route, within the deadline: the connection's
        // receive timeout bounds every wait for a line.
        let connection = try connectForAnswers(global.socketPath)
        var unresolved = false
        var unreachableHosts = false
        for target in targets {
            if let reason = target.unresolvedReason {
                unresolved = true
                writeErrorLine("pathctl: \(target.host): \(reason)")
                continue
            }
            var usable = false
            for address in target.resolved {
                let (report, line) = try Self.ask(connection, about: address, zone: target.zone)
                usable = usable || report.isUsable
                if global.json {
                    echo(line)
                } else {
                    writeOut("\(target.label(for: address)): \(PeerText.oneLine(report.summary))\n")
                }
            }
            if !usable { unreachableHosts = true }
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
