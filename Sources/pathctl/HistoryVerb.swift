// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import Glibc
import PathModel
import PathProtocol
import ServiceSupport

/// `pathctl history`: when the host had no path, for how long and why, and when pathd
/// did not run (unknown), with totals. The text is read from every entry pathd keeps,
/// so an outage that began before `--since` still shows its start; `--json` prints the
/// daemon's `history` line for a request with `since` as given. With `--route HOST...`,
/// the same for the route to each host of `[Watch]` (`HistoryEntry.route(to:in:)`).
struct HistoryVerb: Verb, Equatable {
    static let since = CommandOption(OptionSpec("--since", value: "TIME", help: """
        history: from TIME on: "2026-12-01 03:00", "03:00",
        "yesterday", "-2h", "@1796150000" (see pathctl(1))
        """), brief: "list from this time on (2026-12-01 03:00, yesterday, -2h)")
    static let command = CommandSpec<any Verb.Type>(
        "history", summary: "list the outages of the path (or of the route to HOST...), and totals",
        options: [since, RouteOption.route], operands: RouteOption.hosts, action: Self.self)

    /// `--since`: the oldest time asked about.
    var since: TimeSpecification?
    /// `--route HOST...`: the routes to these hosts of `[Watch]` instead of the path.
    var routeHosts: [String]?

    init(_ line: ParsedCommandLine, operands: [String]) throws(UsageError) {
        routeHosts = try RouteOption.hosts(in: line, operands: operands)
        since = try line.value(Self.since).map { text throws(UsageError) in
            try TimeSpecification.parse(text, for: Self.since.name)
        }
    }

    func run(_ global: GlobalOptions) throws(CommandError) -> PathctlExitStatus {
        let now = SystemTimeSource().now()
        let calendar = LocalCalendar.system
        var since: Duration?
        if let specification = self.since {
            guard let resolved = specification.resolve(now: now.wall, calendar: calendar) else {
                throw .usage("\(Self.since.name) names a local time that does not exist")
            }
            since = resolved
        }
        let request = Request(.history(since: global.json ? since : nil, limit: nil))
        return try converse(global, request) { message, line in
            guard case .history(_, let persistence, let entries, _) = message else { return nil }
            if global.json {
                echo(line)
            } else if let routeHosts {
                // Each host as written in [Watch] Destination=, its route's changes read as a path's.
                for host in routeHosts {
                    let route = HistoryEntry.route(to: host, in: entries)
                    let summary = HistorySummary.summarize(route, now: now)
                    writeOut("Route to \(host):\n")
                    writeOut(HistoryReport.render(summary, since: since, firstEntry: entries.first?.time,
                                                  calendar: calendar, persistence: persistence))
                }
            } else {
                let summary = HistorySummary.summarize(entries, now: now)
                writeOut(HistoryReport.render(summary, since: since, firstEntry: entries.first?.time,
                                              calendar: calendar, persistence: persistence))
            }
            return .success
        }
    }
}

extension LocalCalendar {
    /// The local time zone, as localtime_r(3) and mktime(3) read it (TZ, /etc/localtime).
    static let system = LocalCalendar(
        dateTime: { time in
            var seconds = time_t(time)
            var parts = tm()
            localtime_r(&seconds, &parts)
            return LocalDateTime(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                                 hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
        },
        unixTime: { date in
            var parts = tm()
            parts.tm_year = Int32(date.year - 1900)
            parts.tm_mon = Int32(date.month - 1)
            parts.tm_mday = Int32(date.day)
            parts.tm_hour = Int32(date.hour)
            parts.tm_min = Int32(date.minute)
            parts.tm_sec = Int32(date.second)
            parts.tm_isdst = -1
            let time = mktime(&parts)
            // mktime normalises 31 April to 1 May: a date that comes back different did not exist.
            guard time != -1 || parts.tm_year == 69,
                  parts.tm_mday == Int32(date.day), parts.tm_mon == Int32(date.month - 1) else { return nil }
            return Int64(time)
        })
}
