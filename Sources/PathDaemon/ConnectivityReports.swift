// SPDX-License-Identifier: Apache-2.0
import KernelState
import PathModel
import PathEvaluation
import PathProtocol
import ServiceSupport

/// Connectivity reports (docs/PROTOCOL.md, `reportConnectivity`): pathd-probe fetches
/// the configured URL through each interface of the path and reports what it found.
/// pathd itself opens no IP socket; it only records, prunes and publishes. A report
/// never changes a path: it travels beside it, in the `connectivity` member of path
/// lines and of the `interfaces` reply.
///
/// Threading: the state queue only (see `PathService`).
final class ConnectivityReports {
    /// pathd-probe's latest result per interface name: only for links that are usable
    /// now, and only about the configured URL.
    /// The metrics show them (`ServiceRecords.changed`).
    private(set) var latest: [String: Connectivity] = [:] {
        didSet { records.changed() }
    }
    private let kernelState: KernelStateTracker
    private let configuration: ServiceConfiguration
    private let records: ServiceRecords
    private let log: Logger

    init(kernelState: KernelStateTracker, configuration: ServiceConfiguration, records: ServiceRecords, log: Logger) {
        self.kernelState = kernelState
        self.configuration = configuration
        self.records = records
        self.log = log
    }

    /// Records `report`; nil when recorded, else why not (for a `badArgument` error).
    func record(_ report: Connectivity) -> String? {
        guard let evidence = report.evidence else {
            // Only a request built in code can lack it: `Request.parse` decodes strictly.
            return "the report has no evidence; not recorded"
        }
        guard let url = configuration.current.connectivity.url else {
            return "pathd checks no URL ([Connectivity] URL= is not set); the report is not recorded"
        }
        guard evidence.url == url else {
            return "the report is about \(evidence.url), but pathd's [Connectivity] URL= is \(url); not recorded"
        }
        let previous = latest[evidence.interface]
        latest[evidence.interface] = report
        records.recordConnectivityReport(report.state)
        if previous?.verdict != report.verdict {
            log.info("connectivity through \(evidence.interface): \(report.summary)")
        }
        return nil
    }

    /// The latest report about the interface `name`, unknown without one.
    func report(on name: String) -> Connectivity {
        latest[name] ?? .unknown
    }

    /// The connectivity published with `path`: the report on its first interface, the
    /// one the kernel would use, while the path is satisfied; else unknown.
    func connectivity(of path: Path) -> Connectivity {
        guard path.status == .satisfied, let first = path.availableInterfaces.first else { return .unknown }
        return report(on: first.name)
    }

    /// Forgets reports that no longer describe anything: about a link that is gone or
    /// cannot carry traffic now (a new carrier or address deserves a new check), or about
    /// a URL the configuration no longer names.
    func prune() {
        guard !latest.isEmpty else { return }
        let url = configuration.current.connectivity.url
        let policy = configuration.current.policy
        let snapshot = kernelState.snapshot
        // Only the few links with a report are looked at: this runs after every batch.
        latest = latest.filter { name, report in
            guard report.evidence?.url == url, let link = snapshot.links.values.first(where: { $0.name == name }) else {
                return false
            }
            return InterfaceReport.report(for: link, in: snapshot, policy: policy).isUsable
        }
    }
}
