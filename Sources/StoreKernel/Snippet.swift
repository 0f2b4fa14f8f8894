import DiaryAPI

/// The `snippet` of a search result: about 80 characters of the body around the first match
/// (of the title when only it matches), HTML-escaped, every match wrapped in `<mark>`…`</mark>`,
/// and `…` where the text was cut. Terms match case-insensitively, as the search does.
public enum Snippet {
    public static let length = 80
    /// Matches are looked for in this many leading characters only. A body can hold 2 MiB, and
    /// marking a match at its end cost 0.2 s per entry, ten times sending it.
    public static let scanLimit = 10_000

    public static func make(title: String, body: String, terms: [String]) -> String? {
        for text in [body, title] {
            if let snippet = make(text, terms: terms) { return snippet }
        }
        return nil
    }

    static func make(_ text: String, terms: [String]) -> String? {
        var characters = Array(text.prefix(scanLimit + 1))
        let isCut = characters.count > scanLimit
        if isCut { characters.removeLast() }
        let lowered = characters.map { $0.lowercased() }
        let needles = terms.map { Array($0).map { $0.lowercased() } }.filter { !$0.isEmpty }
        // Every match, as ranges of character offsets.
        var matches: [Range<Int>] = []
        for needle in needles where needle.count <= lowered.count {
            for start in 0...(lowered.count - needle.count) where lowered[start..<start + needle.count].elementsEqual(needle) {
                matches.append(start..<start + needle.count)
            }
        }
        guard let first = matches.min(by: { $0.lowerBound < $1.lowerBound }) else { return nil }
        let start = max(0, min(first.lowerBound - length / 3, characters.count - length))
        let end = min(characters.count, start + length)
        // Matches inside the window, merged where they overlap.
        var marked: [Range<Int>] = []
        for match in matches.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            // No match starts before the window, but a later one can lie wholly after it.
            let lower = max(match.lowerBound, start), upper = min(match.upperBound, end)
            guard lower < upper else { continue }
            let clipped = lower..<upper
            if let last = marked.last, clipped.lowerBound <= last.upperBound {
                marked[marked.count - 1] = last.lowerBound..<max(last.upperBound, clipped.upperBound)
            } else {
                marked.append(clipped)
            }
        }
        var out = start > 0 ? "…" : ""
        var position = start
        for range in marked {
            out += SnippetMarkup.escaped(String(characters[position..<range.lowerBound]))
            out += SnippetMarkup.open + SnippetMarkup.escaped(String(characters[range])) + SnippetMarkup.close
            position = range.upperBound
        }
        out += SnippetMarkup.escaped(String(characters[position..<end]))
        if end < characters.count || isCut { out += "…" }
        return out.replacingOccurrences(of: "\n", with: " ")
    }
}
