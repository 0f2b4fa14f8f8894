import DiaryAPI
import Foundation

/// Small pieces of text the templates share: dates as readers see them, and the language of
/// an author's text.
enum PageText {
    /// `2026-11-01`, in UTC: one spelling that reads the same in Japanese and English.
    static func day(_ date: Date) -> String {
        String(RFC3339.string(from: date).prefix(10))
    }

    /// `2026-11-01 09:30 UTC`.
    static func dayAndTime(_ date: Date) -> String {
        let text = RFC3339.string(from: date)
        let time = text.dropFirst(11).prefix(5)
        return "\(text.prefix(10)) \(time) UTC"
    }

    /// ` lang="ja"` when `text` holds kana, which only Japanese does; else nothing, and the
    /// page's `en` applies. Screen readers and fonts then treat the author's words as what they are.
    static func languageAttribute(_ text: String...) -> String {
        for part in text where part.unicodeScalars.contains(where: { (0x3040...0x30FF).contains($0.value) || (0xFF66...0xFF9D).contains($0.value) }) {
            return " lang=\"ja\""
        }
        return ""
    }
}
