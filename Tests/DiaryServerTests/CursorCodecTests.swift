import DiaryAPI
import DiaryStore
@testable import DiaryServer
import Foundation
import Testing

/// Paging cursors are signed with the store's secret and bound to their list.
@Suite struct CursorCodecTests {
    @Test func signedCursorsRefuseTamperingAndOtherFilters() throws {
        let test = try TestApplication()
        do {
            let store = test.store
            let codec = CursorCodec(secret: try store.cursorSecret())
            #expect(try store.cursorSecret().count == 32)
            let position = EntryPosition.after(created: Date(timeIntervalSince1970: 1_800_000_000), id: 42)
            let filter = EntryFilter(tags: ["travel"])
            let cursor = codec.encode(position, filter: filter, diaryID: nil)
            #expect(codec.decode(cursor, filter: filter, diaryID: nil) == position)
            #expect(codec.decode(cursor, filter: EntryFilter(), diaryID: nil) == nil)
            #expect(codec.decode(cursor, filter: filter, diaryID: 1) == nil)
            var altered = Array(cursor)
            altered[3] = altered[3] == "A" ? "B" : "A"
            #expect(codec.decode(String(altered), filter: filter, diaryID: nil) == nil)
            #expect(codec.decode("garbage", filter: filter, diaryID: nil) == nil)
            // Every other last character, including those that differ only in unused bits.
            for character in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" where character != cursor.last {
                #expect(codec.decode(String(cursor.dropLast()) + String(character), filter: filter, diaryID: nil) == nil, "\(character)")
            }
            #expect(CursorCodec(secret: Array(repeating: 1, count: 32)).decode(cursor, filter: filter, diaryID: nil) == nil)
        }
    }
}
