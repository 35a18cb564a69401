// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
@testable import pathctl
import PathModel
import PathProtocol
import Testing

@Suite("pathctl history and metrics options")
struct HistoryOptionsTests {
    /// 2026-12-01 12:34:56 UTC.
    static let now = Duration.seconds(1_796_128_496)
    /// A zone two hours east of UTC.
    static let plusTwo = LocalCalendar.fixedOffset(7200)

    static let forms: [(String, Int64)] = [
        ("@1796150000", 1_796_150_000), ("@1796150000.5", 1_796_150_000),
        ("2026-12-01 03:00", 1_796_094_000 - 7200), ("2026-12-01T03:00:30", 1_796_094_030 - 7200),
        ("2026-12-01", 1_796_083_200 - 7200), ("2026-12-01T03:00:00Z", 1_796_094_000),
        ("2026-12-01 03:00Z", 1_796_094_000),
        ("03:00", 1_796_094_000 - 7200), ("today", 1_796_083_200 - 7200), ("yesterday", 1_796_083_200 - 7200 - 86_400),
        ("now", 1_796_128_496), ("-2h", 1_796_128_496 - 7200), ("90min ago", 1_796_128_496 - 5400),
        ("-1d", 1_796_128_496 - 86_400), ("-30 s", 1_796_128_496 - 30), ("1 week ago", 1_796_128_496 - 604_800),
    ]

    @Test("TIME forms resolve on the local calendar", arguments: forms)
    func resolves(text: String, expected: Int64) throws {
        let specification = try TimeSpecification.parse(text, for: "--since")
        let resolved = try #require(specification.resolve(now: Self.now, calendar: Self.plusTwo))
        #expect(resolved.components.seconds == expected, "\(text): \(resolved)")
    }

    @Test("anything else is a usage error naming the forms", arguments: [
        "", "tomorrow", "2026-13-01", "2026-12-01 25:00", "12/01/2026", "-2 fortnights", "@-", "@1e9", "03:00Z",
        "2026-12-1", "03:00:00:00", "2 h later",
    ])
    func rejects(text: String) {
        #expect {
            try TimeSpecification.parse(text, for: "--since")
        } throws: { error in
            (error as? UsageError)?.description.hasPrefix("--since expects a time such as") == true
        }
    }

    @Test("a date that does not exist resolves to nothing")
    func impossibleDate() throws {
        #expect(try TimeSpecification.parse("2026-04-31", for: "--since").resolve(now: Self.now, calendar: .utc) == nil)
    }

    @Test("the calendar arithmetic agrees with itself across leap years and before 1970")
    func civilRoundTrip() {
        for time in stride(from: Int64(-3_000_000_000), through: 4_000_000_000, by: 86_399 * 37) {
            let date = LocalCalendar.utc.dateTime(time)
            #expect(LocalCalendar.utc.unixTime(date) == time, "\(date)")
        }
        #expect(LocalCalendar.utc.dateTime(951_782_400) == LocalDateTime(year: 2000, month: 2, day: 29))
    }

    @Test("metrics --format and history --since are each their verb's, and checked when parsed")
    func commandLine() throws {
        #expect(try parsed(MetricsVerb.self, "metrics", "--format", "Prometheus").format == .prometheus)
        #expect(try parsed(MetricsVerb.self, "metrics").format == .openMetrics)
        #expect(try parsed(HistoryVerb.self, "history", "--since=-2h", "--json").since == .ago(.seconds(7200)))
        #expect(try global("history", "--since=-2h", "--json").json)
        #expect(throws: UsageError.self) { try PathctlCommandLine.parse(["status", "--since", "-2h"]) }
        #expect(throws: UsageError.self) { try PathctlCommandLine.parse(["history", "--format", "prometheus"]) }
        #expect(throws: UsageError.self) { try PathctlCommandLine.parse(["metrics", "--format", "json"]) }
        #expect(throws: UsageError.self) { try PathctlCommandLine.parse(["history", "--since", "soon"]) }
    }

    @Test("durations read as a person says them", arguments: [
        (Duration.milliseconds(400), "0.4 s"), (.seconds(2), "2 s"), (.milliseconds(9_960), "10 s"),
        (.seconds(45), "45 s"), (.seconds(192), "3 min 12 s"), (.seconds(600), "10 min"), (.seconds(3720), "1 h 2 min"),
        (.seconds(97_200), "1 d 3 h"),
    ])
    func durations(duration: Duration, text: String) {
        #expect(HistoryReport.duration(duration) == text)
    }

    @Test("the report: outages and gaps under their date, with reasons in words, then totals")
    func report() {
        // 2026-12-01 03:01:07 on a UTC calendar.
        func at(_ seconds: Int64) -> Timestamp {
            Timestamp(wall: .seconds(1_796_094_067 + seconds), monotonic: .seconds(5000 + seconds))
        }
        func change(_ status: PathStatus, _ reason: UnsatisfiedReason? = nil, _ interface: String? = nil,
                    at seconds: Int64) -> HistoryEntry {
            HistoryEntry(time: at(seconds), event: .change(PathChange(status: status, unsatisfiedReason: reason,
                                                                      reasonInterface: interface, generation: .first,
                                                                      sequence: 1)))
        }
        let entries = [
            HistoryEntry(time: at(-67), event: .started), change(.satisfied, at: -67),
            change(.unsatisfied, .noCarrier, "eth0", at: 0), change(.satisfied, at: 192),
            HistoryEntry(time: at(473), event: .stopped), HistoryEntry(time: at(1073), event: .started),
            change(.unsatisfied, .noRoute, at: 1100),
        ]
        let summary = HistorySummary.summarize(entries, now: at(1223))
        let text = HistoryReport.render(summary, since: nil, firstEntry: entries.first?.time, calendar: .utc,
                                        persistence: .persistent)
        #expect(text == """
            2026-12-01
              offline 3 min 12 s, 03:01:07–03:04:19: no carrier on eth0 (cable unplugged or peer down)
              unknown 10 min, 03:09:00–03:19:00: pathd was not running
              offline since 03:19:27 (2 min 3 s so far): no route to the Internet (no default route)

            2 outages, offline 3 min 12 s in all (and 2 min 3 s so far); pathd not running for 10 min (unknown).
            History kept since 2026-12-01 03:00:00.

            """)
        let later = HistoryReport.render(summary, since: at(1000).wall, firstEntry: entries.first?.time, calendar: .utc,
                                         persistence: .inMemory(because: "cannot append to /s/history.jsonl: "
                                                                                 + "No space left on device"))
        #expect(later == """
            2026-12-01
              unknown 10 min, 03:09:00–03:19:00: pathd was not running
              offline since 03:19:27 (2 min 3 s so far): no route to the Internet (no default route)

            1 outage, offline 0 s in all (and 2 min 3 s so far); pathd not running for 10 min (unknown).
            History kept since 2026-12-01 03:00:00, listed from 2026-12-01 03:17:47.
            Kept in memory only, lost when pathd stops: cannot append to /s/history.jsonl: No space left on device.

            """)
    }
}

/// The networks outages happened on, in `pathctl history`.
@Suite("history report: networks")
struct HistoryNetworkReportTests {
    static let hotel = PathChange.Network(id: NetworkID("3f2a91c0d4e5f6a7b8c9d0e1f2a3b4c5")!, name: "hotel-wifi")
    static let unnamed = PathChange.Network(id: NetworkID("9b0c1d2e3f405162738495a6b7c8d9e0")!)

    static func at(_ seconds: Int64) -> Timestamp {
        Timestamp(wall: .seconds(1_796_094_067 + seconds), monotonic: .seconds(5000 + seconds))
    }

    static func change(_ status: PathStatus, on network: PathChange.Network? = nil, at seconds: Int64) -> HistoryEntry {
        var change = PathChange(status: status, unsatisfiedReason: status == .satisfied ? nil : .noRoute,
                                generation: .first, sequence: 1)
        change.network = network
        return HistoryEntry(time: at(seconds), event: .change(change))
    }

    static func render(_ entries: [HistoryEntry]) -> String {
        HistoryReport.render(HistorySummary.summarize(entries, now: at(2000)), since: nil, firstEntry: nil,
                             calendar: .utc, persistence: .persistent)
    }

    @Test("three outages, all on hotel-wifi; each outage line names it")
    func allOnOne() {
        let text = Self.render([
            HistoryEntry(time: Self.at(0), event: .started), Self.change(.satisfied, on: Self.hotel, at: 0),
            Self.change(.unsatisfied, at: 60), Self.change(.satisfied, on: Self.hotel, at: 120),
            Self.change(.unsatisfied, at: 300), Self.change(.satisfied, on: Self.hotel, at: 360),
            Self.change(.unsatisfied, at: 600), Self.change(.satisfied, on: Self.hotel, at: 660),
        ])
        #expect(text.contains("3 outages, all on hotel-wifi, offline 3 min in all."), "\(text)")
        #expect(text.contains("  offline 1 min, 03:02:07–03:03:07 on hotel-wifi: no route to the Internet"), "\(text)")
    }

    @Test("outages on several networks are counted per network, the most first; an unnamed one by its ID")
    func several() {
        let text = Self.render([
            HistoryEntry(time: Self.at(0), event: .started), Self.change(.satisfied, on: Self.unnamed, at: 0),
            Self.change(.unsatisfied, at: 60), Self.change(.satisfied, on: Self.hotel, at: 120),
            Self.change(.unsatisfied, at: 300), Self.change(.satisfied, on: Self.hotel, at: 360),
            Self.change(.unsatisfied, at: 600), Self.change(.satisfied, at: 660),
            Self.change(.unsatisfied, at: 700), Self.change(.satisfied, at: 760),
        ])
        #expect(text.contains("4 outages (2 on hotel-wifi, 1 on 9b0c1d2e3f40, 1 on an unidentified network), "),
                "\(text)")
        let none = Self.render([HistoryEntry(time: Self.at(0), event: .started), Self.change(.satisfied, at: 0),
                                Self.change(.unsatisfied, at: 60), Self.change(.satisfied, at: 120)])
        #expect(none.contains("1 outage, offline 1 min in all."), "no network is named when none was known: \(none)")
    }
}
