import DiaryAPI
import Foundation

/// When a named token's use is written down, for every engine: to the minute, so that a token
/// used by every request of a busy app costs one write a minute, not one per request.
///
/// Each engine reads the stored minute with the token (the lookup every request makes anyway)
/// and writes only when `needsRecording` says so, with a condition (`last_used < minute`) that
/// lets one server of several win the minute and the others change nothing.
public enum TokenUse {
    /// `time` cut down to its minute.
    public static func minute(of time: Date) -> Date {
        Date(timeIntervalSince1970: (time.timeIntervalSince1970 / 60).rounded(.down) * 60)
    }

    /// Whether a use at `time` must be written over `stored` (nil: never used).
    public static func needsRecording(stored: Date?, at time: Date) -> Bool {
        guard let stored else { return true }
        return stored < minute(of: time)
    }
}

extension TokenScope {
    /// A scope column read back (`column` names it for the log).
    public init(stored text: String, column: String) throws(CorruptValue) {
        guard let scope = TokenScope(rawValue: text) else { throw CorruptValue(column: column, value: text) }
        self = scope
    }
}
