import Dispatch
import Glibc
import PathModel
import PathProtocol

/// Connectivity reports (issue 15): pathd-probe fetches the configured URL through each
/// interface of the path and reports what it found with `reportConnectivity`. pathd
/// itself opens no IP socket; it only records, prunes and publishes. A report never
/// changes a path: it travels beside it, in the `connectivity` member of path lines and
/// of the `interfaces` reply.
extension PathService {
    func handleConnectivityReport(_ report: Connectivity, request: Request, from connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard requireTrusted(request, from: connection, doing: "sent a connectivity report",
                             allowed: "reportConnectivity is allowed for root and the daemon's own user (pathd-probe's) only")
        else { return }
        guard let evidence = report.evidence else {
            // Only a request built in code can lack it: `Request.parse` decodes strictly.
            connection.send(ServerMessage.error(code: .badArgument, message: "the report has no evidence; not recorded",
                                                id: request.id).encoded())
            return
        }
        guard let url = configuration.connectivity.url else {
            connection.send(ServerMessage.error(
                code: .badArgument,
                message: "pathd checks no URL ([Connectivity] URL= is not set); the report is not recorded",
                id: request.id).encoded())
            return
        }
        guard evidence.url == url else {
            connection.send(ServerMessage.error(
                code: .badArgument,
                message: "the report is about \(evidence.url), but pathd's [Connectivity] URL= is \(url); not recorded",
                id: request.id).encoded())
            return
        }
        let previous = connectivityReports[evidence.interface]
        connectivityReports[evidence.interface] = report
        counters.recordConnectivityReport(report.state)
        if previous?.verdict != report.verdict {
            log.info("connectivity through \(evidence.interface): \(report.summary)")
        }
        connection.send(ServerMessage.reported(id: request.id).encoded())
        if engine.hasState { publishChanges() }
    }

    /// The connectivity published with `path`: the report on its first interface, the
    /// one the kernel would use, while the path is satisfied; else unknown.
    func connectivity(of path: Path) -> Connectivity {
        guard path.status == .satisfied, let first = path.availableInterfaces.first else { return .unknown }
        return connectivityReports[first.name] ?? .unknown
    }

    /// Forgets reports that no longer describe anything: about a link that is gone or
    /// cannot carry traffic now (a new carrier or address deserves a new check), or about
    /// a URL the configuration no longer names.
    func pruneConnectivityReports() {
        guard !connectivityReports.isEmpty else { return }
        let url = configuration.connectivity.url
        let snapshot = engine.snapshot
        // Only the few links with a report are looked at: this runs after every batch.
        connectivityReports = connectivityReports.filter { name, report in
            guard report.evidence?.url == url, let link = snapshot.links.values.first(where: { $0.name == name }) else {
                return false
            }
            return InterfaceReport.report(for: link, in: snapshot, policy: configuration.policy).isUsable
        }
    }
}
