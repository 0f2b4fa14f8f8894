import DiaryAPI

/// Writes a change page as it is sent, `changesPerChunk` changes a chunk, so that a page of large
/// entries is never one buffer: `{"changes":[…],"next":"…","more":…}`. `next` and `more` come
/// last, after the changes they follow. Pulled by one transport thread at a time.
final class ChangeFeedWriter: @unchecked Sendable {
    static let changesPerChunk = 50

    private let page: ChangePage
    private var written = 0
    private var finished = false

    init(page: ChangePage) {
        self.page = page
    }

    /// The next chunk of the body, then nil.
    func chunk() -> [UInt8]? {
        guard !finished else { return nil }
        var bytes: [UInt8] = written == 0 ? Array(#"{"changes":["#.utf8) : []
        let end = min(written + Self.changesPerChunk, page.changes.count)
        for index in written..<end {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Self.bytes(of: page.changes[index])
        }
        written = end
        if written == page.changes.count {
            finished = true
            // The cursor is digits and at most one dot: nothing in it needs escaping.
            bytes += Array(#"],"next":"\#(page.next)","more":\#(page.more)}"#.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// An entry as `GET /api/entries/{id}` writes it, or a tombstone.
    static func bytes(of change: EntryChange) -> [UInt8] {
        switch change {
        case .entry(let entry): JSONCoding.encode(entry)
        case .deleted(let id): Array(#"{"entry_id":\#(id),"deleted":true}"#.utf8)
        }
    }
}
