// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Dispatch
import Foundation
import PathSocketClient
@testable import PathDaemon
import PathModel
import PathConfiguration
import PathProtocol
import Testing

@Suite("metrics", .blocking)
struct MetricsTests {
    /// The metrics as `pathctl metrics --format prometheus` gets them.
    static func metrics(_ client: PathConnection) throws -> String {
        try client.send(Request(.metrics(format: .prometheus)))
        guard case .metrics(.prometheus, let text, _) = try client.next() else {
            throw PathClientError("no metrics line")
        }
        return text
    }

    /// The value of the sample `name` (with its labels) in a Prometheus text, nil when absent.
    static func value(_ name: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// The sample of eth0's usability, as Fixture's eth0 is labelled.
    static let eth0Usable = #"pathd_interface_usable{interface="eth0",type="wiredEthernet",kind="","#
        + #"expensive="false",constrained="false",in_path="true",network=""}"#

    /// pathd(8)'s METRICS lists the series; a family added to `DaemonMetrics` and not
    /// there fails here (every family is exported, with or without samples).
    @Test("pathd(8) names every metric family pathd exports")
    func manualNamesEveryFamily() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        try client.send(Request(.metrics(format: .openMetrics)))
        guard case .metrics(_, let text, _) = try client.next() else { throw PathClientError("no metrics line") }
        // "# TYPE pathd_path_status stateset"
        let families = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
            .compactMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) }
        #expect(families.count >= 20, "families exported: \(families)")
        let manual = try Repository.read("man/pathd.8")
        let section = manual.components(separatedBy: "\n.Ss METRICS\n").dropFirst().first?
            .components(separatedBy: "\n.Ss ").first ?? ""
        for family in families {
            #expect(section.contains(family), "pathd(8), METRICS, does not name \(family)")
        }
    }

    @Test("""
        the counters follow the default path: changes, unsatisfied seconds by the clock, the reason, the last change
        """)
    func pathCounters() throws {
        let clock = ManualClock()
        let harness = try DaemonHarness(clock: clock)
        defer { harness.stop() }
        let (client, _) = try harness.connectAndSubscribe()
        var text = try Self.metrics(client)
        #expect(Self.value("pathd_path_changes_total", in: text) == "0")
        #expect(Self.value(#"pathd_path_status{pathd_path_status="satisfied"}"#, in: text) == "1")
        #expect(Self.value("pathd_path_last_change_timestamp_seconds", in: text) == "1796150000")

        clock.advance(by: .seconds(10))
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        #expect(try client.nextPath().update.path.status == .unsatisfied)
        clock.advance(by: .milliseconds(2500))
        text = try Self.metrics(client)
        #expect(Self.value(#"pathd_path_status{pathd_path_status="unsatisfied"}"#, in: text) == "1")
        #expect(Self.value(#"pathd_path_unsatisfied_reason{pathd_path_unsatisfied_reason="noCarrier"}"#,
                           in: text) == "1")
        #expect(Self.value(#"pathd_path_unsatisfied_reason{pathd_path_unsatisfied_reason="noRoute"}"#, in: text) == "0")
        // Still unsatisfied: the counter includes the time up to the request.
        #expect(Self.value("pathd_path_unsatisfied_seconds_total", in: text) == "2.5")
        #expect(Self.value(Self.eth0Usable, in: text) == nil)
        #expect(Self.value("pathd_interfaces_usable", in: text) == "0")

        clock.advance(by: .seconds(5))
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        #expect(try client.nextPath().update.path.status == .satisfied)
        clock.advance(by: .seconds(100))
        text = try Self.metrics(client)
        #expect(Self.value("pathd_path_changes_total", in: text) == "2")
        #expect(Self.value("pathd_path_unsatisfied_seconds_total", in: text) == "7.5")
        #expect(Self.value("pathd_path_last_change_timestamp_seconds", in: text) == "1796150017.5")
        #expect(Self.value(#"pathd_path_unsatisfied_reason{pathd_path_unsatisfied_reason="noCarrier"}"#,
                           in: text) == "0")
        #expect(Self.value(Self.eth0Usable, in: text) == "1")
        #expect(Self.value("pathd_path_supports_ipv4", in: text) == "1")
        #expect(Self.value("pathd_path_supports_ipv6", in: text) == "0")
        #expect(Self.value("pathd_clients", in: text) == "1")
        #expect(Self.value("pathd_subscriptions", in: text) == "1")
        #expect(Self.value(#"pathd_build_info{version="\#(DaemonVersion.current)",protocol="1"}"#, in: text) == "1")
    }

    @Test("a resync re-publishes the same path: counted as an overrun and a resync, never as a path change")
    func overrunsAndResyncs() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let (client, _) = try harness.connectAndSubscribe()
        harness.network.latest.overrun()
        guard case .resync = try client.next() else { throw PathClientError("no resync line") }
        _ = try client.nextPath()
        let text = try Self.metrics(client)
        #expect(Self.value("pathd_netlink_overruns_total", in: text) == "1")
        #expect(Self.value("pathd_resyncs_total", in: text) == "1")
        #expect(Self.value("pathd_generation", in: text) == "2")
        #expect(Self.value("pathd_path_changes_total", in: text) == "0")
    }

    @Test("disconnects are counted by reason, refusals included; reloads by result")
    func disconnectsAndReloads() throws {
        let harness = try DaemonHarness(configuration: .daemon { $0.maximumClients = 2 })
        defer { harness.stop() }
        let client = try harness.connect()
        let second = try harness.connect()
        // The third is refused (MaxClients=2): it gets tooManyClients instead of hello.
        #expect(throws: PathClientError.self) { _ = try harness.connect() }
        second.close()
        try harness.waitForClients("one client") { $0 == 1 }
        let reloaded = DispatchSemaphore(value: 0)
        harness.queue.sync {
            harness.service.setConfigurationReloader { .invalid(errors: ["x.conf:1: broken"], warnings: []) }
            harness.service.reloadConfiguration(requestedBy: "test") { _ in reloaded.signal() }
            harness.service.setConfigurationReloader { .valid(.builtIn, warnings: []) }
            harness.service.reloadConfiguration(requestedBy: "test") { _ in reloaded.signal() }
            harness.service.reloadConfiguration(requestedBy: "test") { _ in reloaded.signal() }
        }
        for _ in 0..<3 { #expect(reloaded.wait(timeout: .now() + 10) == .success, "a reload never ended") }
        let text = try Self.metrics(client)
        #expect(Self.value(#"pathd_client_disconnects_total{reason="refused"}"#, in: text) == "1")
        #expect(Self.value(#"pathd_client_disconnects_total{reason="endOfInput"}"#, in: text) == "1")
        #expect(Self.value(#"pathd_client_disconnects_total{reason="notReading"}"#, in: text) == "0")
        #expect(Self.value(#"pathd_config_reloads_total{result="ok"}"#, in: text) == "2")
        #expect(Self.value(#"pathd_config_reloads_total{result="failed"}"#, in: text) == "1")
    }

    @Test("the interface series are bounded: usable links only, the path's first, at most the limit")
    func interfaceBound() {
        let reports = (1...100).map { number in
            InterfaceReport(name: "veth\(number)", index: InterfaceIndex(rawValue: Int32(number)), type: .other,
                            kind: "veth", operState: .up, flags: [.up, .running, .lowerUp],
                            unusableReason: number % 2 == 0 ? .noUsableAddress : nil)
        }
        let path = Path(status: .satisfied,
                        availableInterfaces: [Interface(name: "veth99", index: InterfaceIndex(rawValue: 99),
                                                                            type: .other)])
        let section = DaemonMetrics.InterfaceSection(reports: reports, path: path)
        #expect(section.usableCount == 50)
        #expect(section.usable.count == DaemonMetrics.InterfaceSection.limit)
        #expect(section.usable.first?.name == "veth99")
        #expect(section.usable.allSatisfy { $0.isUsable })
        let samples = section.families.first { $0.name == "pathd_interface_usable" }?.samples ?? []
        #expect(samples.count == DaemonMetrics.InterfaceSection.limit)
        #expect(samples.filter { $0.labels.contains(MetricLabel("in_path", "true")) }.count == 1)
    }

    @Test("OpenMetrics is the default format of the request")
    func defaultFormat() throws {
        let harness = try DaemonHarness()
        defer { harness.stop() }
        let client = try harness.connect()
        try client.send(Request(.metrics(format: nil), id: .string("m")))
        guard case .metrics(.openMetrics, let text, .string("m")) = try client.next() else {
            throw PathClientError("no OpenMetrics reply")
        }
        #expect(text.hasSuffix("# EOF\n"))
        #expect(text.contains("# TYPE pathd_path_status stateset\n"))
    }
}

@Suite("metrics file", .blocking)
struct MetricsFileTests {
    @Test("written at the first path, then on change at most once a second (the scheduler's), emptied on stop")
    func throttledAndAtomic() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            let path = directory + "/pathd.prom"
            let scheduler = ManualScheduler()
            let harness = try DaemonHarness(configuration: .daemon { $0.metricsFilePath = path }, scheduler: scheduler)
            defer { harness.stop() }
            func file() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
            func writes() -> Int { harness.queue.sync { harness.service.records.metricsFile?.writes ?? -1 } }

            #expect(writes() == 1)
            #expect(try file().contains(#"pathd_path_status{pathd_path_status="satisfied"} 1"#))
            #expect(try scheduler.waitForPending() == MetricsFile.minimumInterval)
            // The client's connection is a change too; so is the lost carrier. Both wait.
            let (client, _) = try harness.connectAndSubscribe()
            harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
            #expect(try client.nextPath().update.path.status == .unsatisfied)
            #expect(writes() == 1)
            #expect(try file().contains(#"pathd_path_status{pathd_path_status="satisfied"} 1"#))

            try scheduler.runNext()  // the second is over
            harness.queue.sync {}
            #expect(writes() == 2)
            #expect(try file().contains(#"pathd_path_status{pathd_path_status="unsatisfied"} 1"#))
            #expect(try file().contains("pathd_clients 1\n"))
            // A second without a change writes nothing.
            #expect(scheduler.pendingDelays == [MetricsFile.minimumInterval])
            try scheduler.runNext()
            harness.queue.sync {}
            #expect(writes() == 2)
            #expect(scheduler.pendingDelays.isEmpty)

            var status = stat()
            #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o644)
            harness.stop()
            #expect(try file().isEmpty)
        }
    }

    @Test("a watched route's new report rewrites the file even when no host's state changed")
    func watchedRouteReportsMarkTheFileChanged() throws {
        try withTemporaryDirectory { temporary in
            let path = temporary.url.path + "/pathd.prom"
            let scheduler = ManualScheduler()
            var configuration = Configuration.daemon { $0.metricsFilePath = path }
            configuration.watch.destinations = [.address(Fixture.routeDestination, zone: nil)]
            let harness = try DaemonHarness(configuration: configuration, scheduler: scheduler)
            defer { harness.stop() }
            func writes() -> Int { harness.queue.sync { harness.service.records.metricsFile?.writes ?? -1 } }
            /// Until the throttle's second passes with nothing left to write.
            func quiet() throws {
                while !scheduler.pendingDelays.isEmpty {
                    try scheduler.runNext()
                    harness.queue.sync {}
                }
            }
            // The first call records each host's first state (a history entry of its own).
            try quiet()
            harness.queue.sync { harness.service.watchList.routesChanged() }
            try quiet()
            let quietWrites = writes()
            // What the route watcher calls when an answer changed: the metrics read every
            // address's report, so the file is due whatever the hosts' states say.
            harness.queue.sync { harness.service.watchList.routesChanged() }
            harness.queue.sync {}  // the file is scheduled once the queue's turn ends
            #expect(scheduler.pendingDelays == [MetricsFile.minimumInterval])
            try scheduler.runNext()
            harness.queue.sync {}
            #expect(writes() == quietWrites + 1)
        }
    }

    @Test("a directory that cannot be written is logged once, and the daemon goes on serving")
    func unwritable() throws {
        let log = try LogCapture()
        let scheduler = ManualScheduler()
        let harness = try DaemonHarness(configuration: .daemon {
                                            $0.metricsFilePath = "/nonexistent-pathd-dir/pathd.prom"
                                        },
                                        log: log.logger, scheduler: scheduler)
        defer { harness.stop() }
        let (client, _) = try harness.connectAndSubscribe()
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        _ = try client.nextPath()
        try scheduler.runNext()
        harness.queue.sync {}
        let logged = log.text().components(separatedBy: "metrics: cannot write /nonexistent-pathd-dir/pathd.prom")
            .count - 1
        #expect(logged == 1, "\(log.text())")
        try client.send(Request(.ping, id: .integer(1)))
        #expect(try client.next() == .pong(id: .integer(1)))
    }
}
