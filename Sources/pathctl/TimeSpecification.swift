// SPDX-License-Identifier: Apache-2.0
import CommandLineOptions
import PathModel

/// A date and time on the local calendar (or UTC), as a person writes it.
struct LocalDateTime: Hashable, Sendable {
    var year, month, day, hour, minute, second: Int

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second) = (hour, minute, second)
    }
}

/// Converting between Unix time and a calendar's dates. pathctl uses the local time zone
/// (localtime_r(3) and mktime(3)); `fixedOffset` is pure, for UTC (`…Z`) and tests.
struct LocalCalendar: Sendable {
    /// Unix time (whole seconds) to the date and time on this calendar.
    var dateTime: @Sendable (Int64) -> LocalDateTime
    /// A date and time on this calendar to Unix time; nil when it does not exist.
    var unixTime: @Sendable (LocalDateTime) -> Int64?

    init(dateTime: @escaping @Sendable (Int64) -> LocalDateTime,
                unixTime: @escaping @Sendable (LocalDateTime) -> Int64?) {
        self.dateTime = dateTime
        self.unixTime = unixTime
    }

    /// A zone `offset` seconds east of UTC without daylight saving time.
    static func fixedOffset(_ offset: Int64) -> LocalCalendar {
        LocalCalendar(
            dateTime: { time in
                let (days, secondOfDay) = CivilCalendar.split(seconds: time + offset)
                let (year, month, day) = CivilCalendar.date(days: days)
                let seconds = Int(secondOfDay)
                return LocalDateTime(year: Int(year), month: Int(month), day: Int(day), hour: seconds / 3600,
                                     minute: seconds % 3600 / 60, second: seconds % 60)
            },
            unixTime: { date in
                guard (0...23).contains(date.hour), (0...59).contains(date.minute), (0...60).contains(date.second),
                      let days = CivilCalendar.daysIfValid(year: Int64(date.year), month: Int64(date.month),
                                                           day: Int64(date.day)) else { return nil }
                return days * 86_400 + Int64(date.hour * 3600 + date.minute * 60 + date.second) - offset
            })
    }

    static let utc = fixedOffset(0)
}

/// A point in time as `pathctl history --since` takes it (pathctl(1), TIME):
///
/// | form | meaning |
/// |---|---|
/// | `2026-12-01 03:00:00`, `2026-12-01T03:00`, `2026-12-01` | local time (a date alone: its midnight) |
/// | `2026-12-01T03:00:00Z`, `2026-12-01 03:00Z` | UTC |
/// | `03:00`, `03:00:00` | today, local time |
/// | `today`, `yesterday`, `now` | local midnight of today or yesterday; now |
/// | `-2h`, `90min ago`, `-1d` | so long before now (`s`, `min`, `h`, `d`, `w` and their long names) |
/// | `@1796150000` | Unix time in seconds (a fraction allowed) |
enum TimeSpecification: Hashable, Sendable {
    case unix(Duration)
    case ago(Duration)
    case local(LocalDateTime)
    case utc(LocalDateTime)
    /// A time of day, today.
    case timeToday(hour: Int, minute: Int, second: Int)
    case today, yesterday, now

    static func parse(_ text: String, for option: String) throws(UsageError) -> TimeSpecification {
        let trimmed = text.trimmingSpaces
        func invalid() -> UsageError {
            UsageError("\(option) expects a time such as \"2026-12-01 03:00\", \"03:00\", \"yesterday\", \"-2h\" "
                + "or \"@1796150000\" (see pathctl(1)), got \"\(text)\"")
        }
        switch trimmed.lowercased() {
        case "today": return .today
        case "yesterday": return .yesterday
        case "now": return .now
        default: break
        }
        if trimmed.hasPrefix("@") {
            do {
                return .unix(try OptionValue.seconds(String(trimmed.dropFirst()), for: option))
            } catch {
                throw invalid()
            }
        }
        if trimmed.hasPrefix("-") {
            guard let span = relative(String(trimmed.dropFirst())) else { throw invalid() }
            return .ago(span)
        }
        if trimmed.lowercased().hasSuffix(" ago") {
            guard let span = relative(String(trimmed.dropLast(4))) else { throw invalid() }
            return .ago(span)
        }
        if let (hour, minute, second) = timeOfDay(Substring(trimmed)) {
            return .timeToday(hour: hour, minute: minute, second: second)
        }
        var body = Substring(trimmed)
        let isUTC = body.hasSuffix("Z") || body.hasSuffix("z")
        if isUTC { body = body.dropLast() }
        let parts = body.split(omittingEmptySubsequences: true) { $0 == " " || $0 == "T" || $0 == "t" }
        guard (1...2).contains(parts.count), let date = calendarDate(parts[0]) else { throw invalid() }
        var dateTime = date
        if parts.count == 2 {
            guard let (hour, minute, second) = timeOfDay(parts[1]) else { throw invalid() }
            (dateTime.hour, dateTime.minute, dateTime.second) = (hour, minute, second)
        } else if isUTC {
            throw invalid()
        }
        return isUTC ? .utc(dateTime) : .local(dateTime)
    }

    /// The Unix time it names, read at `now` on `calendar`; nil for a local time that
    /// does not exist (a date like 31 April, or in a daylight saving gap).
    func resolve(now: Duration, calendar: LocalCalendar) -> Duration? {
        let nowSeconds = now.components.seconds
        func midnight(daysBack: Int64) -> Duration? {
            var date = calendar.dateTime(nowSeconds - daysBack * 86_400)
            (date.hour, date.minute, date.second) = (0, 0, 0)
            return calendar.unixTime(date).map { .seconds($0) }
        }
        switch self {
        case .unix(let time): return time
        case .ago(let span): return now - span
        case .local(let date): return calendar.unixTime(date).map { .seconds($0) }
        case .utc(let date): return LocalCalendar.utc.unixTime(date).map { .seconds($0) }
        case .timeToday(let hour, let minute, let second):
            var date = calendar.dateTime(nowSeconds)
            (date.hour, date.minute, date.second) = (hour, minute, second)
            return calendar.unixTime(date).map { .seconds($0) }
        case .today: return midnight(daysBack: 0)
        case .yesterday: return midnight(daysBack: 1)
        case .now: return now
        }
    }

    /// `2h`, `90 min`, `1d`: a number and a unit.
    private static func relative(_ text: String) -> Duration? {
        let trimmed = text.trimmingSpaces
        let digits = trimmed.prefix { ("0"..."9").contains($0) }
        let unit = trimmed.dropFirst(digits.count).trimmingSpaces.lowercased()
        guard !digits.isEmpty, digits.count <= 9, let number = Int64(digits) else { return nil }
        let units: [(names: [String], seconds: Int64)] = [
            (["s", "sec", "second", "seconds"], 1), (["m", "min", "minute", "minutes"], 60),
            (["h", "hour", "hours"], 3600), (["d", "day", "days"], 86_400), (["w", "week", "weeks"], 604_800),
        ]
        guard let scale = units.first(where: { $0.names.contains(unit) })?.seconds else { return nil }
        return .seconds(number * scale)
    }

    /// `YYYY-MM-DD`.
    private static func calendarDate(_ text: Substring) -> LocalDateTime? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
              let year = number(fields[0]), let month = number(fields[1]), let day = number(fields[2]),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        return LocalDateTime(year: year, month: month, day: day)
    }

    /// `HH:MM` or `HH:MM:SS`.
    private static func timeOfDay(_ text: Substring) -> (Int, Int, Int)? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), fields.allSatisfy({ $0.count == 2 }),
              let hour = number(fields[0]), let minute = number(fields[1]),
              (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        let second = fields.count == 3 ? number(fields[2]) : 0
        guard let second, (0...60).contains(second) else { return nil }
        return (hour, minute, second)
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int(text)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
