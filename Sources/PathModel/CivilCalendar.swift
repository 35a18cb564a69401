// SPDX-License-Identifier: Apache-2.0
/// The proleptic Gregorian calendar in days since 1970-01-01 (Howard Hinnant's
/// `days_from_civil` and `civil_from_days`): for `UTCTime`'s RFC 3339 text and for
/// pathctl's `--since`/`--until` dates.
public enum CivilCalendar {
    /// Days since 1970-01-01 of a date; month 1...12 (an out-of-range day is carried
    /// over: 31 April is 1 May).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Days since 1970-01-01 of a date that exists; nil for month 13 or 31 April.
    public static func daysIfValid(year: Int64, month: Int64, day: Int64) -> Int64? {
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        let days = days(year: year, month: month, day: day)
        return date(days: days) == (year, month, day) ? days : nil
    }

    /// The date `days` after 1970-01-01 (before it when negative).
    public static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Seconds since the epoch as whole days and the seconds into the last one
    /// (0..<86 400, also before 1970).
    public static func split(seconds: Int64) -> (days: Int64, secondOfDay: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (days, seconds - days * 86_400)
    }
}
