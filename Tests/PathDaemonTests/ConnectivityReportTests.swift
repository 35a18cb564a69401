// SPDX-License-Identifier: Apache-2.0
import DaemonTestSupport
import PathTestFixtures
import Glibc
import PathDaemon
import PathModel
import PathProtocol
import PathSocketClient
import Dispatch
import Testing

/// pathd's side of the connectivity check: reports from pathd-probe recorded, published
/// beside the path (never in it), one line per change of verdict.
@Suite("connectivity reports", .blocking)
struct ConnectivityReportTests {
    @Test("a report changes no path field; subscribers get one line per verdict, none for a confirmation")
    func publishedBesideThePath() throws {
        let harness = try DaemonHarness(configuration: CheckReports.configuration())
        defer { harness.stop() }
        let (subscriber, first) = try harness.connectAndSubscribe()
        #expect(first.connectivity == .unknown)
        #expect(first.path.status == .satisfied)

        let probe = try harness.connect()
        let portal = CheckReports.report(.portal, redirect: "http://login.example/")
        #expect(try CheckReports.send(portal, from: probe) == .reported(id: .integer(1)))
        let second = try subscriber.nextPath().update
        #expect(second.path == first.path, "a report must not change the path")
        #expect(second.connectivity == portal)
        #expect(second.sequence == first.sequence + 1)

        // The same verdict with other timings: recorded (interfaces shows it), no line.
        let confirmed = CheckReports.report(.portal, redirect: "http://login.example/", elapsed: 99)
        #expect(try CheckReports.send(confirmed, from: probe, id: 2) == .reported(id: .integer(2)))
        try subscriber.expectNothingPending()
        try probe.send(Request(.interfaces))
        guard case .interfaces(_, let reports, _) = try probe.next() else {
            Issue.record("no interfaces reply")
            return
        }
        #expect(reports.first { $0.name == "eth0" }?.connectivity == confirmed)
        #expect(reports.first { $0.name == "lo" }?.connectivity == .unknown)

        let full = CheckReports.report(.full)
        #expect(try CheckReports.send(full, from: probe, id: 3) == .reported(id: .integer(3)))
        let third = try subscriber.nextPath().update
        #expect(third.connectivity == full && third.path == first.path)

        // status says the same as the subscription.
        try probe.send(Request(.status(.any)))
        #expect(try probe.nextPath().update.connectivity == full)
    }

    @Test("a check that confirms the verdict sends no line, but status and a new subscription show its evidence")
    func latestEvidenceInStatus() throws {
        let harness = try DaemonHarness(configuration: CheckReports.configuration())
        defer { harness.stop() }
        let (subscriber, _) = try harness.connectAndSubscribe()
        let probe = try harness.connect()
        let first = CheckReports.report(.full, checkedAt: 1_796_113_800)
        _ = try CheckReports.send(first, from: probe)
        let announced = try subscriber.nextPath().update
        #expect(announced.connectivity == first)

        // Five more checks, each a minute later, each confirming "full".
        var latest = first
        for minute in 1...5 {
            latest = CheckReports.report(.full, elapsed: 5 + Int64(minute),
                                         checkedAt: 1_796_113_800 + 60 * Int64(minute))
            #expect(try CheckReports.send(latest, from: probe, id: Int64(minute) + 1)
                    == .reported(id: .integer(Int64(minute) + 1)))
            try probe.send(Request(.status(.any)))
            let status = try probe.nextPath().update
            #expect(status.connectivity == latest, "status kept an older check")
            #expect(status.sequence == announced.sequence && status.generation == announced.generation
                    && status.path == announced.path, "a confirmation is not a new path line")
        }
        try subscriber.expectNothingPending()
        let (_, joined) = try harness.connectAndSubscribe()
        #expect(joined.connectivity == latest && joined.sequence == announced.sequence)

        // The next change of verdict is published with its own evidence.
        let portal = CheckReports.report(.portal, redirect: "http://login.example/", checkedAt: 1_796_114_200)
        _ = try CheckReports.send(portal, from: probe, id: 9)
        let changed = try subscriber.nextPath().update
        #expect(changed.connectivity == portal && changed.sequence == announced.sequence + 1)
    }

    @Test("the path's connectivity is its first interface's; a report on another link is only in interfaces")
    func onlyTheFirstInterface() throws {
        let harness = try DaemonHarness(configuration: CheckReports.configuration())
        defer { harness.stop() }
        let probe = try harness.connect()
        #expect(try CheckReports.send(CheckReports.report(.full, interface: "wlan9"), from: probe)
                == .reported(id: .integer(1)))
        try probe.send(Request(.status(.any)))
        #expect(try probe.nextPath().update.connectivity == .unknown)
    }

    @Test("a link that loses its carrier loses its result: unknown, and a path line saying so")
    func forgottenWithTheLink() throws {
        let harness = try DaemonHarness(configuration: CheckReports.configuration())
        defer { harness.stop() }
        let (subscriber, _) = try harness.connectAndSubscribe()
        let probe = try harness.connect()
        _ = try CheckReports.send(CheckReports.report(.limited), from: probe)
        #expect(try subscriber.nextPath().update.connectivity.state == .limited)
        harness.network.latest.emit([.linkChanged(Fixture.eth0NoCarrier)])
        let down = try subscriber.nextPath().update
        #expect(down.path.status == .unsatisfied && down.connectivity == .unknown)
        harness.network.latest.emit([.linkChanged(Fixture.eth0())])
        let up = try subscriber.nextPath().update
        #expect(up.path.status == .satisfied && up.connectivity == .unknown, "an old result outlived the carrier")
    }

    @Test("reports about another URL, or with checking off, are refused and change nothing")
    func wrongURL() throws {
        let harness = try DaemonHarness(configuration: CheckReports.configuration())
        defer { harness.stop() }
        let probe = try harness.connect()
        guard case .error(.badArgument, let message,
                          .integer(1)) = try CheckReports.send(CheckReports.report(.full, url: "http://x/"),
                                                                                 from: probe) else {
            Issue.record("a report about another URL was taken")
            return
        }
        #expect(message.contains("URL= is \(CheckReports.url)"))
        try probe.send(Request(.status(.any)))
        #expect(try probe.nextPath().update.connectivity == .unknown)

        let off = try DaemonHarness(configuration: CheckReports.configuration(url: nil))
        defer { off.stop() }
        let other = try off.connect()
        guard case .error(.badArgument, let why, _) = try CheckReports.send(CheckReports.report(.full),
                                                                            from: other) else {
            Issue.record("a report was taken with checking off")
            return
        }
        #expect(why.contains("checks no URL"))
    }

    @Test("a reload to another URL forgets the results about the old one")
    func reloadForgets() throws {
        let harness = try DaemonHarness(configuration: CheckReports.configuration())
        defer { harness.stop() }
        let (subscriber, _) = try harness.connectAndSubscribe()
        let probe = try harness.connect()
        _ = try CheckReports.send(CheckReports.report(.full), from: probe)
        #expect(try subscriber.nextPath().update.connectivity.state == .full)
        harness.queue.sync {
            harness.service.reconfigure(CheckReports.configuration(url: "http://198.51.100.1:8080/other"))
        }
        #expect(try subscriber.nextPath().update.connectivity == .unknown)
    }
}

@Suite("connectivity in the metrics", .blocking)
struct ConnectivityMetricsTests {
    @Test("the default path's verdict, each link's state and check time, and reports by state")
    func metricsShowTheVerdict() throws {
        let harness = try DaemonHarness(configuration: CheckReports.configuration())
        defer { harness.stop() }
        let client = try harness.connect()
        func metrics() throws -> String {
            try client.send(Request(.metrics(format: .prometheus)))
            guard case .metrics(_, let text, _) = try client.next() else { throw PathClientError("no metrics line") }
            return text
        }
        let before = try metrics()
        #expect(before.contains(#"pathd_path_connectivity{pathd_path_connectivity="unknown"} 1"#), "\(before)")
        #expect(before.contains(#"pathd_connectivity_reports_total{state="portal"} 0"#), "\(before)")
        #expect(!before.contains("pathd_connectivity_state{"))

        let portal = CheckReports.report(.portal, redirect: "http://login.example/")
        #expect(try CheckReports.send(portal, from: client) == .reported(id: .integer(1)))
        let after = try metrics()
        #expect(after.contains(#"pathd_path_connectivity{pathd_path_connectivity="portal"} 1"#), "\(after)")
        #expect(after.contains(#"pathd_path_connectivity{pathd_path_connectivity="full"} 0"#))
        #expect(after.contains(#"pathd_connectivity_state{interface="eth0",state="portal"} 1"#))
        #expect(after.contains(#"pathd_connectivity_check_timestamp_seconds{interface="eth0"} 1796113800"#))
        #expect(after.contains(#"pathd_connectivity_reports_total{state="portal"} 1"#))
        // Beside the path, never in it.
        #expect(after.contains(#"pathd_path_status{pathd_path_status="satisfied"} 1"#))
    }
}
