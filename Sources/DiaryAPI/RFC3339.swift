import CalendarTime
import Foundation

/// RFC 3339 timestamps in UTC with whole seconds (`2026-11-22T04:30:00Z`), the one date
/// format of the API and of the database. Written with `CalendarTime` (glibc's
/// `gmtime_r`/`timegm`): no formatter object to share between threads.
public enum RFC3339 {
    public static func string(from date: Date) -> String {
        let parts = CalendarTime(secondsSince1970: Int(date.timeIntervalSince1970.rounded(.down)))
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var v = value
                for i in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[i] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
            }
            put(parts.year, 4, at: 0); buffer[4] = UInt8(ascii: "-")
            put(parts.month, 2, at: 5); buffer[7] = UInt8(ascii: "-")
            put(parts.day, 2, at: 8); buffer[10] = UInt8(ascii: "T")
            put(parts.hour, 2, at: 11); buffer[13] = UInt8(ascii: ":")
            put(parts.minute, 2, at: 14); buffer[16] = UInt8(ascii: ":")
            put(parts.second, 2, at: 17); buffer[19] = UInt8(ascii: "Z")
            return 20
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; the fraction is dropped.
    public static func date(from text: String) -> Date? {
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for byte in b[start..<start + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func at(_ i: Int, _ chars: String) -> Bool { i < b.count && chars.utf8.contains(b[i]) }
        guard let year = number(0, 4), at(4, "-"), let month = number(5, 2), at(7, "-"), let day = number(8, 2),
              at(10, "Tt "), let hour = number(11, 2), at(13, ":"), let minute = number(14, 2), at(16, ":"),
              let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        if at(i, ".") {
            i += 1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
            guard i > start else { return nil }
        }
        var offset = 0
        if at(i, "Zz") {
            i += 1
        } else if at(i, "+-"), let oh = number(i + 1, 2), at(i + 3, ":"), let om = number(i + 4, 2), oh < 24, om < 60 {
            offset = (oh * 3600 + om * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let time = CalendarTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        let (seconds, dateCarriedOver) = time.secondsSince1970
        // 31 February is carried into March; a date that moved was not a date.
        guard !dateCarriedOver else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds - offset))
    }
}
