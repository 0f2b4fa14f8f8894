#if canImport(Glibc)
import Glibc
#endif

/// A moment as the UTC calendar names it, made and read with glibc's `gmtime_r` and `timegm`:
/// no formatter object or calendar to share between threads, and no time zone but UTC. The
/// date formats (RFC 3339 in the API, IMF-fixdate in HTTP headers) are written on top of it.
public struct CalendarTime: Sendable, Equatable {
    /// The full year (2026).
    public var year: Int
    /// 1 for January through 12.
    public var month: Int
    /// The day of the month, from 1.
    public var day: Int
    public var hour: Int
    public var minute: Int
    /// Up to 60 for a leap second.
    public var second: Int
    /// 0 for Sunday through 6; only `init(secondsSince1970:)` sets it, and `secondsSince1970` ignores it.
    public var weekday: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        weekday = 0
    }

    /// The UTC calendar time of `seconds` since 1970 (`gmtime_r`). Inlinable, as the formats
    /// built on it were when they called glibc themselves: dates are written on every answer built.
    @inlinable
    public init(secondsSince1970 seconds: Int) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        self.init(parts)
    }

    @usableFromInline
    init(_ parts: tm) {
        year = Int(parts.tm_year) + 1900
        month = Int(parts.tm_mon) + 1
        day = Int(parts.tm_mday)
        hour = Int(parts.tm_hour)
        minute = Int(parts.tm_min)
        second = Int(parts.tm_sec)
        weekday = Int(parts.tm_wday)
    }

    /// The seconds since 1970 of this UTC time (`timegm`), and whether a field past its range
    /// carried over into the date, as `timegm` does (31 February is 3 March): a date that moved
    /// was not a date.
    @inlinable
    public var secondsSince1970: (seconds: Int, dateCarriedOver: Bool) {
        var parts = tm()
        parts.tm_year = Int32(truncatingIfNeeded: year - 1900)
        parts.tm_mon = Int32(truncatingIfNeeded: month - 1)
        parts.tm_mday = Int32(truncatingIfNeeded: day)
        parts.tm_hour = Int32(truncatingIfNeeded: hour)
        parts.tm_min = Int32(truncatingIfNeeded: minute)
        parts.tm_sec = Int32(truncatingIfNeeded: second)
        let seconds = Int(timegm(&parts))
        let carried = parts.tm_mday != Int32(truncatingIfNeeded: day) || parts.tm_mon != Int32(truncatingIfNeeded: month - 1)
        return (seconds, carried)
    }
}
