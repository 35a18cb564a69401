// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// What pathd's metrics say at one moment, as plain values, and the metric families
/// they make (`families`, a pure function: tests build one by hand). The service fills
/// it from its parts and `DaemonCounters` (`PathService.currentMetrics`).
///
/// To add metrics, add a section: a value with a `families` list of its own, a stored
/// property here, and its families in `families`.
struct DaemonMetrics: Sendable {
    var path: PathSection
    var interfaces: InterfaceSection
    var connectivity: ConnectivitySection
    var daemon: DaemonSection
    var routes: RouteSection

    var families: [MetricFamily] {
        path.families + interfaces.families + connectivity.families + daemon.families + routes.families
    }

    /// Reads `pathd_route_*`: the hosts of `[Watch]` (`WatchList`), bounded by
    /// `WatchSettings.maximumDestinations` × `WatchList.maximumAddressesPerHost`.
    struct RouteSection: Sendable {
        struct Host: Sendable {
            /// As written in `Destination=`.
            var host: String
            /// Each address watched and its report (nil before its first answer).
            var routes: [(address: IPAddress, report: RouteReport?)]
            /// Why a name has no address; nil otherwise.
            var unresolved: String?
            var unusableTime: Duration
        }

        var hosts: [Host]

        init(_ hosts: [Host]) {
            self.hosts = hosts
        }

        var families: [MetricFamily] {
            func labels(_ host: Host, _ address: IPAddress) -> [MetricLabel] {
                [MetricLabel("host", host.host), MetricLabel("destination", address.description)]
            }
            let answered = hosts.flatMap { host in
                host.routes.compactMap { route in route.report.map { (host, route.address, $0) } }
            }
            return [
                .gauge("pathd_route_usable", help: """
                    1 when the route to a watched destination ([Watch] Destination=) can carry traffic, as the route \
                    request judges it; one series per address of each host.
                    """, answered.map { host, address, report in
                        MetricSample(labels(host, address), value: report.isUsable ? 1 : 0)
                    }),
                .gauge("pathd_route_expensive", help: "1 when the route to a watched destination uses an expensive "
                    + "interface (a tunnel's underlay counts).", answered.map { host, address, report in
                        MetricSample(labels(host, address), value: report.isExpensive ? 1 : 0)
                    }),
                .gauge("pathd_route_info", help: """
                    1 for each watched destination, labelled with the interface its route leaves by and why it \
                    cannot carry traffic (empty when it can; unresolved for a name that does not resolve).
                    """, answered.map { host, address, report in
                        MetricSample(labels(host, address) + [
                            MetricLabel("interface", report.interface?.name ?? ""),
                            MetricLabel("reason", report.unsatisfiedReason?.rawValue ?? ""),
                        ], value: 1)
                    } + hosts.filter { $0.unresolved != nil }.map { host in
                        MetricSample([MetricLabel("host", host.host), MetricLabel("destination", ""),
                                      MetricLabel("interface", ""),
                                      MetricLabel("reason", UnsatisfiedReason.unresolved.rawValue)], value: 1)
                    }),
                .counter("pathd_route_unusable_seconds", unit: "seconds", help: """
                    Time no route to a watched host could carry traffic (or its name did not resolve) since pathd \
                    started.
                    """, hosts.map { host in
                        MetricSample([MetricLabel("host", host.host)], value: host.unusableTime.seconds)
                    }),
            ]
        }
    }

    /// Reads `pathd_connectivity_*`: what pathd-probe found, beside the path (never in it).
    /// One series per link with a report; reports exist only for usable links, so this is
    /// bounded as the interface section is.
    struct ConnectivitySection: Sendable {
        /// The verdict published with the default path.
        var path: Connectivity
        /// The latest report of each link, by link name.
        var reports: [String: Connectivity]
        /// Reports taken since pathd started, by state.
        var reportCounts: [ConnectivityState: UInt64]

        var families: [MetricFamily] {
            let byLink = reports.sorted { $0.key < $1.key }
            return [
                .stateSet("pathd_path_connectivity", help: """
                    The connectivity check's verdict for the default path's first interface (unknown when \
                    not checked or not configured); it never changes pathd_path_status.
                    """, states: ConnectivityState.allCases.map(\.rawValue), active: [path.state.rawValue]),
                .gauge("pathd_connectivity_state", help: "1 for each link's latest connectivity verdict, by state.",
                       byLink.map { link, report in
                           MetricSample([MetricLabel("interface", link), MetricLabel("state", report.state.rawValue)],
                                        value: 1)
                       }),
                .gauge("pathd_connectivity_check_timestamp_seconds", unit: "seconds",
                       help: "When each link was last checked, Unix time.",
                       byLink.compactMap { link, report in
                           report.evidence.map { evidence in
                               MetricSample([MetricLabel("interface", link)],
                                            value: Double(evidence.checkedAt.secondsSinceEpoch))
                           }
                       }),
                .counter("pathd_connectivity_reports", help: "Connectivity reports taken from pathd-probe, by state.",
                         ConnectivityState.allCases.map { state in
                             MetricSample([MetricLabel("state", state.rawValue)],
                                          value: Double(reportCounts[state] ?? 0))
                         }),
            ]
        }
    }

    /// Reads `pathd_path_*`: the default criteria's path.
    struct PathSection: Sendable {
        var path: Path
        var changes: UInt64
        var unsatisfiedTime: Duration
        /// Wall-clock time of the last change (the first path counts), nil before any.
        var lastChange: Duration?

        var families: [MetricFamily] {
            [
                .stateSet("pathd_path_status", help: "Status of the default path (any interface type).",
                          states: PathStatus.allCases.map(\.rawValue), active: [path.status.rawValue]),
                .stateSet("pathd_path_unsatisfied_reason",
                          help: "Why the default path is unsatisfied; every state is 0 while it is not.",
                          states: UnsatisfiedReason.allCases.map(\.rawValue),
                          active: path.status == .unsatisfied
                              ? Set(path.unsatisfiedReason.map { [$0.rawValue] } ?? []) : []),
                .flag("pathd_path_expensive",
                      help: "1 when the default path uses an interface the policy marks expensive.", path.isExpensive),
                .flag("pathd_path_constrained",
                      help: "1 when the default path uses an interface the policy marks constrained.",
                      path.isConstrained),
                .flag("pathd_path_supports_ipv4", help: "1 when IPv4 traffic has a usable route, interface and source.",
                      path.supportsIPv4),
                .flag("pathd_path_supports_ipv6", help: "1 when IPv6 traffic has a usable route, interface and source.",
                      path.supportsIPv6),
                .flag("pathd_path_supports_dns", help: "1 when the resolver configuration names a usable nameserver.",
                      path.supportsDNS),
                .counter("pathd_path_changes", help: "Changes of the default path since pathd started.",
                         value: Double(changes)),
                .counter("pathd_path_unsatisfied_seconds", unit: "seconds",
                         help: "Time the default path was unsatisfied since pathd started.",
                         value: unsatisfiedTime.seconds),
                .gauge("pathd_path_last_change_timestamp_seconds", unit: "seconds",
                       help: "When the default path last changed (its first path after start counts), Unix time.",
                       lastChange.map { [MetricSample(value: $0.seconds)] } ?? []),
            ]
        }
    }

    /// Reads `pathd_interface*`: one series per usable link, bounded (see `limit`).
    struct InterfaceSection: Sendable {
        /// Series kept at most: a host with thousands of usable links (a router, a
        /// hypervisor) still exports a bounded number; `usableCount` counts them all.
        static let limit = 32

        /// The usable links exported, the default path's interfaces first.
        var usable: [InterfaceReport]
        /// The names of the interfaces the default path uses.
        var inPath: Set<String>
        /// Every usable link, exported or not.
        var usableCount: Int

        /// The usable links of `reports` (the `interfaces` request's view): those in
        /// `path` first, in the path's order, then by index, at most `limit` of them.
        init(reports: [InterfaceReport], path: Path) {
            let usableReports = reports.filter(\.isUsable)
            let pathNames = path.availableInterfaces.map(\.name)
            let first = pathNames.compactMap { name in usableReports.first { $0.name == name } }
            let rest = usableReports.filter { !pathNames.contains($0.name) }
            usable = Array((first + rest).prefix(Self.limit))
            inPath = Set(pathNames)
            usableCount = usableReports.count
        }

        var families: [MetricFamily] {
            [
                .gauge("pathd_interface_usable", help: """
                    1 for each link that could carry a path (up, carrier, an address it would send from; \
                    not loopback, not ignored), at most \(Self.limit), the path's first; network is the Name= \
                    of the [Network] section naming the link's network (empty when none does).
                    """, usable.map { report in
                        MetricSample([
                            MetricLabel("interface", report.name),
                            MetricLabel("type", report.type.rawValue),
                            MetricLabel("kind", report.kind ?? ""),
                            MetricLabel("expensive", report.isExpensive ? "true" : "false"),
                            MetricLabel("constrained", report.isConstrained ? "true" : "false"),
                            MetricLabel("in_path", inPath.contains(report.name) ? "true" : "false"),
                            // A configured name only: never an ID or a MAC (bounded by the
                            // configuration, and nothing a network can make up).
                            MetricLabel("network", report.network?.name ?? ""),
                        ], value: 1)
                    }),
                .gauge("pathd_interfaces_usable", help: "Links that could carry a path, all of them.",
                       value: Double(usableCount)),
            ]
        }
    }

    /// Reads `pathd_*` about the daemon itself.
    struct DaemonSection: Sendable {
        var counters: DaemonCounters
        var generation: Generation
        var clients: Int
        var subscriptions: Int
        var startTime: Duration

        var families: [MetricFamily] {
            [
                .counter("pathd_netlink_overruns", help: "Kernel receive-buffer overruns (ENOBUFS): events were lost.",
                         value: Double(counters.overruns)),
                .counter("pathd_resyncs", help: "Times the kernel's state was read again after events were lost.",
                         value: Double(counters.resyncs)),
                .gauge("pathd_generation", help: "The current monitor generation; it grows with every resync.",
                       value: Double(generation.rawValue)),
                .gauge("pathd_clients", help: "Clients connected to the socket.", value: Double(clients)),
                .gauge("pathd_subscriptions", help: "Subscriptions of all clients.", value: Double(subscriptions)),
                .counter("pathd_client_disconnects", help: "Client connections closed, by reason.",
                         ClientConnection.CloseReason.allCases.map { reason in
                             MetricSample([MetricLabel("reason", reason.rawValue)],
                                          value: Double(counters.disconnects[reason] ?? 0))
                         }),
                .counter("pathd_config_reloads",
                         help: "Configuration reloads (SIGHUP or the reload request), by result.",
                         DaemonCounters.ReloadResult.allCases.map { result in
                             MetricSample([MetricLabel("result", result.rawValue)],
                                          value: Double(counters.reloads[result] ?? 0))
                         }),
                .gauge("pathd_start_time_seconds", unit: "seconds", help: "When pathd started, Unix time.",
                       value: startTime.seconds),
                .info("pathd_build", help: "pathd's version and the socket protocol's version.",
                      labels: [MetricLabel("version", DaemonVersion.current),
                               MetricLabel("protocol", String(ProtocolVersion.current))]),
            ]
        }
    }
}
