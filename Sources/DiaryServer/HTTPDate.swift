import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110's IMF-fixdate) for `Last-Modified`
/// and `If-Modified-Since`, written with `gmtime_r`/`timegm`: no shared formatter.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var t = tm()
        gmtime_r(&seconds, &t)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(t.tm_wday)]), \(two(t.tm_mday)) \(months[Int(t.tm_mon)]) \(t.tm_year + 1900) "
            + "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }

    /// The date in an IMF-fixdate, or nil for anything else (a condition with a date that
    /// cannot be read is ignored, as RFC 9110 asks).
    static func date(from text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", parts[0].hasSuffix(","),
              let day = Int32(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])), let year = Int32(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int32(time[0]), let minute = Int32(time[1]), let second = Int32(time[2]),
              (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (1970...9999).contains(year)
        else { return nil }
        var t = tm()
        t.tm_year = year - 1900
        t.tm_mon = Int32(monthIndex)
        t.tm_mday = day
        t.tm_hour = hour
        t.tm_min = minute
        t.tm_sec = second
        return Date(timeIntervalSince1970: TimeInterval(timegm(&t)))
    }
}
