// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite("history summary")
struct HistorySummaryTests {
    /// A moment `seconds` into a run whose monotonic clock reads `offset` more than the wall clock's base.
    static func at(_ seconds: Int64, monotonicOffset: Int64 = 0) -> Timestamp {
        Timestamp(wall: .seconds(1_796_150_000 + seconds), monotonic: .seconds(1000 + seconds + monotonicOffset))
    }

    static func change(_ status: PathStatus, _ reason: UnsatisfiedReason? = nil, interface: String? = nil,
                       at seconds: Int64, monotonicOffset: Int64 = 0) -> HistoryEntry {
        HistoryEntry(time: at(seconds, monotonicOffset: monotonicOffset),
                     event: .change(PathChange(status: status, unsatisfiedReason: reason, reasonInterface: interface,
                                               generation: .first, sequence: 1)))
    }

    @Test("a watched route's changes are its own history: the path's summary skips them, route(to:in:) reads them")
    func watchedRoutes() {
        func route(_ host: String, _ status: PathStatus, words: String? = nil, at seconds: Int64) -> HistoryEntry {
            var change = PathChange(status: status, unsatisfiedReason: status == .satisfied ? nil : .noRoute,
                                    generation: .first, sequence: 1)
            change.recordedExplanation = words
            return HistoryEntry(time: Self.at(seconds), event: .route(host: host, change))
        }
        let entries = [
            HistoryEntry(time: Self.at(0), event: .started),
            Self.change(.satisfied, at: 0),
            route("db.example.org", .satisfied, at: 1),
            route("db.example.org", .unsatisfied, words: "no route to 192.0.2.10", at: 60),
            route("vpn.example.org", .unsatisfied, words: "cannot resolve: Name or service not known", at: 70),
            route("db.example.org", .satisfied, at: 90),
        ]
        #expect(HistorySummary.summarize(entries, now: Self.at(100)).outages.isEmpty, "the path never went")
        let database = HistorySummary.summarize(HistoryEntry.route(to: "db.example.org", in: entries),
                                                now: Self.at(100))
        #expect(database.outages.count == 1)
        #expect(database.outages.first?.reasons == ["no route to 192.0.2.10"])
        #expect(database.outages.first?.duration == .seconds(30))
        let vpn = HistorySummary.summarize(HistoryEntry.route(to: "vpn.example.org", in: entries), now: Self.at(100))
        #expect(vpn.outages.first?.end == .ongoing)
        #expect(vpn.outages.first?.reasons == ["cannot resolve: Name or service not known"])
    }

    @Test("an outage runs from the change away from satisfied to the change back, with its reasons in order")
    func outage() {
        let summary = HistorySummary.summarize([
            HistoryEntry(time: Self.at(0), event: .started),
            Self.change(.satisfied, at: 0),
            Self.change(.unsatisfied, .noCarrier, interface: "eth0", at: 60),
            Self.change(.unsatisfied, .noRoute, at: 100),
            Self.change(.satisfied, at: 252),
        ], now: Self.at(300))
        #expect(summary.outages.count == 1)
        let outage = summary.outages[0]
        #expect(outage.start == Self.at(60))
        #expect(outage.end == .recovered(Self.at(252)))
        #expect(outage.duration == .seconds(192))
        #expect(outage.reasons == ["no carrier on eth0 (cable unplugged or peer down)",
                                   "no route to the Internet (no default route)"])
        #expect(summary.offline == .seconds(192))
        #expect(summary.unknown == .zero)
    }

    @Test("within a run the monotonic clock measures, so setting the wall clock changes no duration")
    func monotonicWithinARun() {
        let summary = HistorySummary.summarize([
            HistoryEntry(time: Self.at(0), event: .started),
            Self.change(.unsatisfied, .noRoute, at: 10),
            // The wall clock jumped back an hour; the monotonic clock went on 20 s.
            Self.change(.satisfied, at: 30 - 3600, monotonicOffset: 3600),
        ], now: Self.at(40))
        #expect(summary.outages.map(\.duration) == [.seconds(20)])
    }

    @Test("a clean stop ends the outage there; the time until the next start is unknown, never offline")
    func cleanStop() {
        let summary = HistorySummary.summarize([
            HistoryEntry(time: Self.at(0), event: .started),
            Self.change(.unsatisfied, .noCarrier, interface: "eth0", at: 5),
            HistoryEntry(time: Self.at(20), event: .stopped),
            HistoryEntry(time: Self.at(620, monotonicOffset: -1000), event: .started),
            Self.change(.unsatisfied, .noCarrier, interface: "eth0", at: 621, monotonicOffset: -1000),
        ], now: Self.at(630, monotonicOffset: -1000))
        #expect(summary.periods.count == 3)
        #expect(summary.outages[0].end == .stopped(Self.at(20)))
        #expect(summary.outages[0].duration == .seconds(15))
        guard case .unknown(let gap) = summary.periods[1] else {
            Issue.record("no unknown gap: \(summary.periods)")
            return
        }
        #expect(gap.afterCleanStop)
        // Across runs the wall clock measures (the monotonic one restarted at a reboot).
        #expect(gap.duration == .seconds(600))
        #expect(summary.outages[1].end == .ongoing)
        #expect(summary.outages[1].duration == .seconds(9))
        #expect(summary.offline == .seconds(24))
        #expect(summary.unknown == .seconds(600))
    }

    @Test("""
        a run that ended without a stop mark (kill -9): the outage's end is unknown, the gap runs from its last line
        """)
    func crash() {
        let summary = HistorySummary.summarize([
            HistoryEntry(time: Self.at(0), event: .started),
            Self.change(.satisfied, at: 0),
            Self.change(.unsatisfied, .noRoute, at: 10),
            Self.change(.unsatisfied, .routeRejects, interface: "wg0", at: 12),
            HistoryEntry(time: Self.at(50), event: .started),
            Self.change(.satisfied, at: 50),
        ], now: Self.at(60))
        #expect(summary.outages.count == 1)
        #expect(summary.outages[0].end == .lost(lastSeen: Self.at(12)))
        #expect(summary.outages[0].duration == .seconds(2))
        guard case .unknown(let gap) = summary.periods.last else {
            Issue.record("no unknown gap: \(summary.periods)")
            return
        }
        #expect(!gap.afterCleanStop)
        #expect(gap.start == Self.at(12) && gap.end == Self.at(50))
    }

    @Test("requiresConnection is an outage of its own status; identical satisfied lines change nothing")
    func requiresConnection() {
        let summary = HistorySummary.summarize([
            Self.change(.satisfied, at: 0),
            Self.change(.satisfied, at: 1),
            Self.change(.requiresConnection, at: 2),
            Self.change(.satisfied, at: 7),
        ], now: Self.at(8))
        #expect(summary.outages.map(\.status) == [.requiresConnection])
        #expect(summary.outages[0].reasons.isEmpty)
        #expect(summary.offline == .seconds(5))
    }

    @Test("no entries, no periods")
    func empty() {
        #expect(HistorySummary.summarize([], now: Self.at(0)).periods.isEmpty)
    }
}

@Suite("history summary: networks")
struct HistorySummaryNetworkTests {
    static let home = PathChange.Network(id: NetworkID("3f2a91c0d4e5f6a7b8c9d0e1f2a3b4c5")!, name: "home")

    static func change(_ status: PathStatus, on network: PathChange.Network? = nil, at seconds: Int64) -> HistoryEntry {
        var change = PathChange(status: status, unsatisfiedReason: status == .satisfied ? nil : .noCarrier,
                                generation: .first, sequence: 1)
        change.network = network
        return HistoryEntry(time: HistorySummaryTests.at(seconds), event: .change(change))
    }

    @Test("an outage is on the network of the run's last satisfied path; a new run knows none")
    func attribution() {
        let summary = HistorySummary.summarize([
            HistoryEntry(time: HistorySummaryTests.at(0), event: .started),
            Self.change(.satisfied, on: Self.home, at: 0),
            Self.change(.unsatisfied, at: 10), Self.change(.unsatisfied, at: 15), Self.change(.satisfied, at: 20),
            Self.change(.unsatisfied, at: 30), Self.change(.satisfied, on: Self.home, at: 40),
            HistoryEntry(time: HistorySummaryTests.at(50), event: .stopped),
            HistoryEntry(time: HistorySummaryTests.at(60), event: .started), Self.change(.unsatisfied, at: 60),
        ], now: HistorySummaryTests.at(70))
        #expect(summary.outages.map(\.network) == ["home", nil, nil])
    }
}
