/// How a search term splits into the chunks of an index of words, both engines' (PostgreSQL's
/// `entry_chunks`, schema v9; SQLite's `entries_chunks`, schema v8): a chunk is a run of an
/// entry's folded title or body between spaces, tabs, CRs and LFs, a word with the punctuation
/// around it ("bridge."). A term without those four characters is inside one chunk of every
/// entry that holds it; a term of parts joined by single spaces ("river bridge") spans
/// neighbouring chunks: one ending with the first part, then one starting with the second (or
/// equal to it, when more parts follow).
public enum TermChunks {
    /// Where a part of a term must sit in the chunk that holds it.
    public enum Place: Sendable, Equatable {
        /// The term's only part: anywhere in the chunk.
        case inside
        /// The first of several: at the chunk's end.
        case end
        /// Between the first and the last: the whole chunk.
        case whole
        /// The last of several: at the chunk's start.
        case start
    }

    /// The parts of `term` between its spaces, when the chunks can narrow it: parts joined by
    /// single spaces, none holding a tab, CR or LF (which cut chunks too), each holding an
    /// ASCII letter or digit (only chunks holding one are indexed). Else nil.
    public static func parts(of term: String) -> [String]? {
        let parts = term.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let holdsASCIIWordCharacter: (String) -> Bool = { part in
            part.unicodeScalars.contains { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        }
        let cutsChunks: (String) -> Bool = { part in part.unicodeScalars.contains { $0 == "\t" || $0 == "\r" || $0 == "\n" } }
        guard parts.allSatisfy({ !$0.isEmpty && holdsASCIIWordCharacter($0) && !cutsChunks($0) }) else {
            return nil
        }
        return parts
    }

    /// Where each of `parts` must sit in its chunk.
    public static func places(of parts: [String]) -> [Place] {
        guard parts.count > 1 else { return [.inside] }
        return parts.indices.map { index in
            index == 0 ? .end : index == parts.count - 1 ? .start : .whole
        }
    }
}
