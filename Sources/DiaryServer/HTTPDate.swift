import CalendarTime
import Foundation

/// HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110's IMF-fixdate) for `Last-Modified`
/// and `If-Modified-Since`, written with `CalendarTime`: no shared formatter.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func string(from date: Date) -> String {
        let t = CalendarTime(secondsSince1970: Int(date.timeIntervalSince1970.rounded(.down)))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[t.weekday]), \(two(t.day)) \(months[t.month - 1]) \(t.year) "
            + "\(two(t.hour)):\(two(t.minute)):\(two(t.second)) GMT"
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
        // A day past the month's end (31 February) carries over, as it always has here.
        let moment = CalendarTime(year: Int(year), month: monthIndex + 1, day: Int(day), hour: Int(hour), minute: Int(minute), second: Int(second))
        return Date(timeIntervalSince1970: TimeInterval(moment.secondsSince1970.seconds))
    }
}
