// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel
import PathProtocol

/// `pathctl interfaces`: every link as pathd sees it, and why each can or cannot carry
/// a path (as `networkctl list`, one row per link).
struct InterfacesVerb: PlainVerb, Equatable {
    static let command = CommandSpec<any Verb.Type>(
        "interfaces", summary: "list the links pathd sees and why each is usable or not", action: Self.self)

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        try converse(global, Request(.interfaces)) { message, line in
            guard case .interfaces(let generation, let reports, _) = message else { return nil }
            if global.json {
                echo(line)
            } else {
                writeOut(Self.table(reports) + "\n\(reports.count) links listed (generation \(generation)).\n")
            }
            return .success
        }
    }

    /// A link's network in one cell: its name, else the first 12 digits of its ID, else
    /// its state; with the gateway's MAC when the daemon gave the facts (root's reply).
    static func network(of report: InterfaceReport) -> String {
        guard let network = report.network else { return "-" }
        let name = network.name.map { PeerText.oneLine($0) } ?? network.id.map { String($0.description.prefix(12)) }
        let shown = network.state == .identified ? (name ?? "identified") : PeerText.oneLine(network.state.rawValue)
        let macs = report.networkFacts?.gatewayMACs.map(\.description) ?? []
        return macs.isEmpty ? shown : "\(shown)[\(macs.joined(separator: ","))]"
    }

    /// The readable table: columns padded to their widest cell, the last one free.
    static func table(_ reports: [InterfaceReport]) -> String {
        let header = ["IDX", "LINK", "TYPE", "KIND", "OPERSTATE", "USABLE", "NETWORK", "COST", "ADDRESSES"]
        let rows = reports.map { report -> [String] in
            var cost: [String] = []
            if report.isExpensive { cost.append("expensive(\(report.isExpensiveSetBy.rawValue))") }
            if report.isConstrained { cost.append("constrained(\(report.isConstrainedSetBy.rawValue))") }
            let addresses = report.addresses.map { address -> String in
                // The flags that say why an address is not (or not preferably) used.
                let notes = InterfaceReport.addressFlagNames
                    .filter { [.tentative, .dadFailed, .deprecated].contains($0.0) && address.flags.contains($0.0) }
                    .map(\.1)
                let text = "\(address.address)/\(address.prefixLength)"
                return notes.isEmpty ? text : "\(text) (\(notes.joined(separator: ", ")))"
            }
            return [String(report.index.rawValue), report.name, report.type.rawValue, report.kind ?? "-",
                    report.operState.name, report.unusableReason.map { "no (\($0))" } ?? "yes",
                    network(of: report), cost.isEmpty ? "-" : cost.joined(separator: ","),
                    addresses.isEmpty ? "-" : addresses.joined(separator: ", ")]
        }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column -> String in
                let cell = row[column]
                if column == row.count - 1 { return cell }
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                // Numbers right-aligned, as networkctl does.
                return column == 0 ? padding + cell : cell + padding
            }.joined(separator: " ")
        }.joined(separator: "\n") + "\n"
    }
}
