// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// `pathctl history` for a person: the outages and the times pathd did not run, one line
/// each under the date they began, then the totals.
///
///     2026-12-01
///       offline 3 min 12 s, 03:01:07–03:04:19 on hotel-wifi: no carrier on eth0 (cable unplugged or peer down)
///       unknown 10 min, 03:10:00–03:20:00: pathd was not running
///
///     1 outage, on hotel-wifi, offline 3 min 12 s in all; pathd not running for 10 min (unknown).
enum HistoryReport {
    /// The report of `summary`, keeping the periods that end at `since` or later
    /// (ongoing ones always); times on `calendar`. A history kept in memory only is
    /// said so last, with the daemon's reason.
    static func render(_ summary: HistorySummary, since: Duration?, firstEntry: Timestamp?,
                       calendar: LocalCalendar, persistence: HistoryPersistence) -> String {
        let periods = summary.periods.filter { period in
            guard let since else { return true }
            return end(of: period).map { $0.wall >= since } ?? true
        }
        var lines: [String] = []
        var lastDate: String?
        for period in periods {
            let startDate = date(period.start, calendar)
            if startDate != lastDate {
                if lastDate != nil { lines.append("") }
                lines.append(startDate)
                lastDate = startDate
            }
            lines.append("  " + line(for: period, calendar: calendar))
        }
        let shown = HistorySummary(periods: periods)
        let outages = shown.outages
        let ongoing = outages.filter { $0.end == HistorySummary.Outage.End.ongoing }
        var totals = "\(outages.count) \(outages.count == 1 ? "outage" : "outages")" + networks(of: outages)
        if !outages.isEmpty {
            let finished = outages.filter { $0.end != HistorySummary.Outage.End.ongoing }
                .reduce(Duration.zero) { $0 + $1.duration }
            totals += ", offline \(duration(finished)) in all"
            if let current = ongoing.first { totals += " (and \(duration(current.duration)) so far)" }
        }
        if shown.unknown > .zero { totals += "; pathd not running for \(duration(shown.unknown)) (unknown)" }
        if !lines.isEmpty { lines.append("") }
        lines.append(totals + ".")
        var scope = firstEntry.map { "History kept since \(date($0, calendar)) \(time($0.wall, calendar))" }
            ?? "Nothing recorded yet"
        if let since {
            let from = Timestamp(wall: since, monotonic: .zero)
            scope += ", listed from \(date(from, calendar)) \(time(since, calendar))"
        }
        lines.append(scope + ".")
        switch persistence {
        case .persistent: break
        case .inMemory(let reason?): lines.append("Kept in memory only, lost when pathd stops: \(reason).")
        case .inMemory(nil): lines.append("Kept in memory only, lost when pathd stops.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Which networks the outages were on: ", all on hotel-wifi" (", on hotel-wifi" for
    /// one), " (2 on hotel-wifi, 1 on home, 1 on an unidentified network)", or nothing when
    /// none was identified.
    static func networks(of outages: [HistorySummary.Outage]) -> String {
        var counts: [(label: String, count: Int)] = []
        for outage in outages {
            let label = outage.network.map { "on \($0)" } ?? "on an unidentified network"
            if let index = counts.firstIndex(where: { $0.label == label }) {
                counts[index].count += 1
            } else {
                counts.append((label, 1))
            }
        }
        guard outages.contains(where: { $0.network != nil }) else { return "" }
        if counts.count == 1 { return outages.count == 1 ? ", \(counts[0].label)" : ", all \(counts[0].label)" }
        // The most first; among equals, the one met first.
        let ranked = counts.enumerated().sorted { ($0.element.count, $1.offset) > ($1.element.count, $0.offset) }
        return " (" + ranked.map { "\($0.element.count) \($0.element.label)" }.joined(separator: ", ") + ")"
    }

    /// "offline 3 min 12 s, 03:01:07–03:04:19 on hotel-wifi: no carrier on eth0 …"
    static func line(for period: HistorySummary.Period, calendar: LocalCalendar) -> String {
        switch period {
        case .outage(let outage):
            let what = outage.status == .requiresConnection ? "waiting for a connection" : "offline"
            let reasons = (outage.network.map { " on \($0)" } ?? "")
                + (outage.reasons.isEmpty ? "" : ": " + outage.reasons.joined(separator: "; then "))
            let start = time(outage.start.wall, calendar)
            switch outage.end {
            case .recovered(let end):
                return "\(what) \(duration(outage.duration)), \(start)–\(endTime(end, after: outage.start, calendar))"
                    + reasons
            case .stopped(let end):
                return "\(what) \(duration(outage.duration)), \(start)–\(endTime(end, after: outage.start, calendar))"
                    + " (pathd stopped)\(reasons)"
            case .lost(let lastSeen):
                return "\(what) from \(start), end unknown (pathd ended without stopping; last seen "
                    + "\(endTime(lastSeen, after: outage.start, calendar)))\(reasons)"
            case .ongoing:
                return "\(what) since \(start) (\(duration(outage.duration)) so far)\(reasons)"
            }
        case .unknown(let gap):
            let how = gap.afterCleanStop ? "pathd was not running" : "pathd was not running (it ended without stopping)"
            return "unknown \(duration(gap.duration)), \(time(gap.start.wall, calendar))–"
                + "\(endTime(gap.end, after: gap.start, calendar)): \(how)"
        }
    }

    /// "3 min 12 s", "1 h 2 min", "2 d 3 h", "45 s", "0.4 s".
    static func duration(_ duration: Duration) -> String {
        let milliseconds = TimeSpan.milliseconds(duration)
        let seconds = milliseconds / 1000
        if seconds < 10 {
            let tenths = (milliseconds + 50) / 100
            return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
        }
        if seconds < 60 { return "\(seconds) s" }
        func pair(_ big: Int64, _ bigUnit: String, _ small: Int64, _ smallUnit: String) -> String {
            small == 0 ? "\(big) \(bigUnit)" : "\(big) \(bigUnit) \(small) \(smallUnit)"
        }
        if seconds < 3600 { return pair(seconds / 60, "min", seconds % 60, "s") }
        if seconds < 86_400 { return pair(seconds / 3600, "h", seconds % 3600 / 60, "min") }
        return pair(seconds / 86_400, "d", seconds % 86_400 / 3600, "h")
    }

    private static func end(of period: HistorySummary.Period) -> Timestamp? {
        switch period {
        case .outage(let outage):
            switch outage.end {
            case .recovered(let time), .stopped(let time), .lost(let time): return time
            case .ongoing: return nil
            }
        case .unknown(let gap): return gap.end
        }
    }

    /// The end's time of day, with its date when that differs from the start's.
    private static func endTime(_ end: Timestamp, after start: Timestamp, _ calendar: LocalCalendar) -> String {
        let day = date(end, calendar)
        return day == date(start, calendar) ? time(end.wall, calendar) : "\(day) \(time(end.wall, calendar))"
    }

    static func date(_ time: Timestamp, _ calendar: LocalCalendar) -> String {
        let local = calendar.dateTime(floorSeconds(time.wall))
        return "\(local.year)-\(twoDigits(local.month))-\(twoDigits(local.day))"
    }

    static func time(_ wall: Duration, _ calendar: LocalCalendar) -> String {
        let local = calendar.dateTime(floorSeconds(wall))
        return "\(twoDigits(local.hour)):\(twoDigits(local.minute)):\(twoDigits(local.second))"
    }

    private static func floorSeconds(_ wall: Duration) -> Int64 {
        let (seconds, attoseconds) = wall.components
        return attoseconds < 0 ? seconds - 1 : seconds
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
