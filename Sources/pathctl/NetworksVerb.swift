// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathProtocol
import PathSocketClient
import ServiceSupport

/// `pathctl networks`: the networks pathd has seen, with the facts their IDs come from
/// (the gateway's MAC; root and pathd's user only, as the `networks` request is), and a
/// `[Network]` section for the network the path is on now, ready to paste into
/// pathd.conf(5). With `--json`, the daemon's `networks` line.
struct NetworksVerb: PlainVerb, Equatable {
    static let command = CommandSpec<any Verb.Type>(
        "networks", summary: "list the networks pathd has seen; print a [Network] section for the current one",
        action: Self.self)

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        let connection = try connectForAnswers(global.socketPath)
        let deadline = ContinuousClock.now + answerDeadline
        /// Sends `request` and returns its answer; an `error` line is a refusal.
        func ask(_ request: Request) throws(CommandError) -> (ServerMessage, [UInt8]) {
            do throws(PathClientError) {
                try connection.send(request)
            } catch {
                throw CommandError(error)
            }
            while true {
                let (message, line) = try nextAnswer(on: connection, before: deadline)
                switch message {
                case .error(let code, let text, _):
                    if global.json { echo(line) }
                    throw .refused(code, text)
                case .networks, .path: return (message, line)
                default: continue
                }
            }
        }
        let (reply, line) = try ask(Request(.networks))
        guard case .networks(let capacity, let persistence, let networks, _) = reply else { return .unreachable }
        if global.json {
            echo(line)
            return .success
        }
        guard case .path(let update, _) = try ask(Request(.status(.any))).0 else { return .unreachable }
        let now = SystemTimeSource().now()
        writeOut(Self.report(networks, capacity: capacity, persistence: persistence, path: update.path,
                             now: now, calendar: .system))
        return .success
    }

    /// The table, the totals, and the section for the path's network.
    static func report(_ networks: [SeenNetwork], capacity: Int, persistence: HistoryPersistence, path: Path,
                       now: Timestamp, calendar: LocalCalendar) -> String {
        var text = ""
        if !networks.isEmpty {
            let header = ["ID", "NAME", "ANCHOR", "LAST SEEN", "LINKS", "FACTS"]
            let rows = networks.map { network -> [String] in
                let seen = network.isCurrent ? "now"
                    : HistoryReport.date(Timestamp(wall: network.lastSeen, monotonic: .zero), calendar) + " "
                        + HistoryReport.time(network.lastSeen, calendar)
                return [String(network.id.description.prefix(12)), network.name ?? "-",
                        network.facts.anchor.rawValue, seen,
                        network.interfaces.isEmpty ? "-" : network.interfaces.joined(separator: ","),
                        facts(network.facts)]
            }
            text += table([header] + rows)
        }
        let count = "\(networks.count) \(networks.count == 1 ? "network" : "networks")"
        text += "\n\(count) listed (pathd keeps the \(capacity) seen last"
        switch persistence {
        case .persistent: text += ", across restarts).\n"
        case .inMemory(let reason?): text += "; in memory only, lost when pathd stops: \(reason)).\n"
        case .inMemory(nil): text += "; in memory only, lost when pathd stops).\n"
        }
        guard let interface = path.availableInterfaces.first, let network = interface.network else {
            return text + "\nThe path is on no network pathd identified: no [Network] section can name it.\n"
        }
        guard network.state == .identified, let id = network.id else {
            return text + "\nThe path's network on \(interface.name) is \(network.state.rawValue): no [Network] "
                + "section can name it until it is identified (pathctl status shows when).\n"
        }
        let seen = networks.first { $0.id == id }
        text += "\nThe path is on \(network.summary) (\(interface.name)). To "
            + (network.name == nil ? "name it" : "change what pathd says of it")
            + ", add this to /etc/pathd/pathd.conf (pathd.conf(5), [Network]) and run pathctl reload:\n\n"
        text += section(id: id, name: network.name ?? suggestedName(for: seen, id: id, interface: interface.name),
                        isExpensive: path.isExpensive, seen: seen)
        return text
    }

    /// The section: the ID to match (as pathctl prints it), a name, the cost as pathd
    /// decides it now; the facts as a comment, for the reader.
    static func section(id: NetworkID, name: String, isExpensive: Bool, seen: SeenNetwork?) -> String {
        var lines = ["[Network]"]
        if let seen { lines.append("# " + facts(seen.facts) + (seen.domains.isEmpty ? "" : ", domains "
                                                               + seen.domains.joined(separator: " "))) }
        lines += ["ID=\(id)", "Name=\(name)", "Expensive=\(isExpensive ? "yes" : "no")"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A name `Name=` takes (`LinkNetwork.isValidName`): the first label of the network's
    /// first search domain, else the link's name and the ID's first digits, else
    /// "network-" and those digits.
    static func suggestedName(for seen: SeenNetwork?, id: NetworkID, interface: String) -> String {
        let digits = String(id.description.prefix(6))
        let candidates = [seen?.domains.first?.split(separator: ".").first.map(String.init), interface + "-" + digits]
        return candidates.lazy.compactMap { $0 }.first(where: LinkNetwork.isValidName) ?? "network-" + digits
    }

    /// "gateway MAC 02:00:00:00:00:01", "virtual router 00:00:5e:00:01:01 at 192.168.1.1 in 192.168.1.0/24".
    static func facts(_ facts: NetworkFacts) -> String {
        let macs = facts.gatewayMACs.map(\.description).joined(separator: ",")
        let gateways = facts.gateways.map(\.description).joined(separator: ",")
        var words: [String] = []
        switch facts.anchor {
        case .gatewayMAC: words.append("gateway MAC \(macs)")
        case .virtualRouter: words.append("virtual router \(macs) at \(gateways)")
        case .gateway: words.append("gateway \(gateways)")
        case .prefix, .unrecognized: break
        }
        if facts.anchor != .gateway && facts.anchor != .gatewayMAC, let prefix = facts.prefix {
            words.append("in \(prefix)")
        }
        if let kind = facts.linkKind { words.append("(\(kind))") }
        return PeerText.oneLine(words.joined(separator: " "))
    }

    /// Columns padded to their widest cell, the last one free.
    private static func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column]
                    : row[column] + String(repeating: " ", count: widths[column] - row[column].count)
            }.joined(separator: " ")
        }.joined(separator: "\n") + "\n"
    }
}
