// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import PathProtocol

/// Human-readable renderings of a path for `status` and `monitor`.
enum PathFormatting {
    /// The readable `status`; with `coloured`, the status word is green when satisfied,
    /// red when unsatisfied and yellow when it requires a connection.
    static func statusReport(_ update: PathUpdate, coloured: Bool) -> String {
        let path = update.path
        func yesNo(_ flag: Bool) -> String { flag ? "yes" : "no" }
        let colour: TerminalColour = switch path.status {
        case .satisfied: .green
        case .unsatisfied, .unrecognized: .red
        case .requiresConnection: .yellow
        }
        var lines = ["Path:        " + headline(update),
                     "Status:      " + (coloured ? colour.paint(path.status.rawValue) : path.status.rawValue)]
        if path.status != .satisfied && path.status != .requiresConnection {
            let reason = path.unsatisfiedReason?.rawValue ?? "unknown"
            let explanation = path.unsatisfiedReason?.explanation(interface: path.reasonInterface) ?? "unknown"
            lines.append("Reason:      \(explanation) [\(reason)]")
        }
        let interfaces = path.availableInterfaces.map { "\($0.name) (\($0.type.rawValue))" }
        lines.append("Interfaces:  \(interfaces.isEmpty ? "none" : interfaces.joined(separator: ", "))")
        lines.append("IPv4:        \(yesNo(path.supportsIPv4))")
        lines.append("IPv6:        \(yesNo(path.supportsIPv6))")
        lines.append("DNS:         \(yesNo(path.supportsDNS))")
        lines.append("Network:     " + networkReport(path.network))
        lines.append("Expensive:   \(yesNo(path.isExpensive))"
            + (path.isExpensiveSetBy.map { " (\($0.rawValue))" } ?? ""))
        lines.append("Constrained: \(yesNo(path.isConstrained))"
            + (path.isConstrainedSetBy.map { " (\($0.rawValue))" } ?? ""))
        if !path.gateways.isEmpty {
            lines.append("Gateways:    \(path.gateways.map(\.description).joined(separator: ", "))")
        }
        lines.append("Connectivity: " + connectivityReport(update.connectivity))
        // What the network announced (RFC 8910), which pathd shows and never checks.
        if let announcing = path.availableInterfaces.first(where: { $0.captivePortal != nil }),
           let portal = announcing.captivePortal {
            lines.append("Portal:      \(PeerText.oneLine(portal)) (announced by \(announcing.name)'s network)")
        }
        lines.append("Generation:  \(update.generation) (sequence \(update.sequence))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// "home (identified by gatewayMAC, ID 5f0c…)", "pending (waiting for gatewayMAC)",
    /// "unidentified", or "none" for a path on no network (or from a daemon that
    /// identifies none). The daemon's words go through `PeerText`.
    static func networkReport(_ network: LinkNetwork?) -> String {
        guard let network else { return "none" }
        let anchor = network.anchor.map { PeerText.oneLine($0.rawValue) }
        switch network.state {
        case .identified:
            let id = network.id.map { "ID \($0)" } ?? "no ID"
            let name = network.name.map { PeerText.oneLine($0) + " " } ?? ""
            return name + "(identified" + (anchor.map { " by \($0)" } ?? "") + ", \(id))"
        case .pending:
            return "pending" + (anchor.map { " (waiting for \($0))" } ?? "")
        case .unidentified, .unrecognized:
            return PeerText.oneLine(network.state.rawValue)
        }
    }

    /// "satisfied via wlan0 (IPv4, DNS) — captive portal: http://login.example/": the
    /// path, then what the connectivity check found beyond it, when it found anything.
    static func headline(_ update: PathUpdate) -> String {
        update.connectivity.state == .unknown ? update.path.summary
            : "\(update.path.summary) — \(update.connectivity.summary)"
    }

    /// "portal: HTTP 302 to http://login.example/ through wlan0, 0 bytes in 12 ms,
    /// checked 2026-12-01T08:30:00Z", or why there is no result.
    static func connectivityReport(_ connectivity: Connectivity) -> String {
        guard let evidence = connectivity.evidence else {
            return "unknown (not checked: no [Connectivity] URL=, no pathd-probe, or no satisfied path yet)"
        }
        var what: [String] = []
        if let status = evidence.httpStatus {
            what.append("HTTP \(status)" + (evidence.redirectTarget.map { " to \($0)" } ?? ""))
        }
        if let error = evidence.error { what.append(error) }
        return "\(connectivity.state.rawValue): " + what.joined(separator: ", ")
            + " through \(evidence.interface), \(evidence.bytesReceived) bytes in \(evidence.elapsedMilliseconds) ms, "
            + "checked \(evidence.checkedAt) (\(evidence.url))"
    }

    /// "2026-12-01T08:30:00Z satisfied via eth0 (IPv4, DNS)", with the connectivity
    /// check's verdict after a dash when there is one.
    static func monitorLine(_ update: PathUpdate) -> String {
        // One line per change, whatever text the daemon's reasons and evidence carry.
        "\(timestamp()) \(PeerText.oneLine(headline(update)))\n"
    }

    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
