import DiaryAPI
import DiaryStore
import Foundation
import StoreKernel
import Testing

/// `ChangeFeed.page` on rows given by hand: the order, the cursor, the tombstones, the 410.
@Suite struct ChangeFeedKernelTests {
    static func entry(_ id: Int64, _ visibility: Visibility) -> Entry {
        Entry(id: id, diaryID: 1, author: "alice", title: "t", body: "", created: Date(timeIntervalSince1970: 0), updated: Date(timeIntervalSince1970: 0), visibility: visibility)
    }

    /// Audience 0 (public) and 7 (alice): rows as an engine would read them.
    static let rows: [Int64: [ChangeFeed.Row]] = [
        0: [
            ChangeFeed.Row(position: 1, entryID: 1, entry: entry(1, .public), ownerID: 7),
            ChangeFeed.Row(position: 3, entryID: 2, entry: entry(2, .private), ownerID: 7),
            ChangeFeed.Row(position: 4, entryID: 3, entry: nil, ownerID: nil),
        ],
        7: [
            ChangeFeed.Row(position: 2, entryID: 1, entry: entry(1, .public), ownerID: 7),
            ChangeFeed.Row(position: 5, entryID: 2, entry: entry(2, .private), ownerID: 7),
        ],
    ]

    static func page(since: ChangeCursor?, viewer: Int64?, limit: Int = 10, horizon: Int64 = 0) throws -> ChangePage {
        try ChangeFeed.page(
            since: since, viewerID: viewer, limit: limit, horizon: { $0 == 0 ? horizon : 0 },
            rows: { audience, after, limit in Array((rows[audience] ?? []).filter { $0.position > after }.prefix(limit)) }
        )
    }

    @Test func othersGetTombstonesForWhatTheyMayNotListAndTheOwnerGetsItWhole() throws {
        let anyone = try Self.page(since: nil, viewer: nil)
        #expect(anyone.changes == [.entry(Self.entry(1, .public)), .deleted(entryID: 2), .deleted(entryID: 3)])
        #expect(anyone.next == "4" && !anyone.more)
        let owner = try Self.page(since: nil, viewer: 7)
        #expect(owner.changes == [.entry(Self.entry(1, .public)), .entry(Self.entry(2, .private)), .deleted(entryID: 3)])
        #expect(owner.next == "4.5")
        let other = try Self.page(since: ChangeCursor(publicPosition: 1, ownPosition: nil), viewer: 9)
        #expect(other.changes == [.deleted(entryID: 2), .deleted(entryID: 3)] && other.next == "4.0")
    }

    @Test func ownChangesComeFirstAndAFullPageLeavesThePublicPositionWhereItWas() throws {
        let first = try Self.page(since: nil, viewer: 7, limit: 2)
        #expect(first.changes == [.entry(Self.entry(1, .public)), .entry(Self.entry(2, .private))] && first.more && first.next == "0.5")
        let second = try Self.page(since: first.nextCursor, viewer: 7, limit: 2)
        #expect(second.next == "3.5" && second.more)
        let third = try Self.page(since: second.nextCursor, viewer: 7, limit: 2)
        #expect(third.changes == [.deleted(entryID: 3)] && third.next == "4.5" && !third.more)
    }

    @Test func aCursorShortOfTheHorizonIsExpiredButTheBeginningNever() throws {
        #expect(throws: StoreError(.expired, .operation("cursor position 2"))) {
            try Self.page(since: ChangeCursor(publicPosition: 2, ownPosition: nil), viewer: nil, horizon: 3)
        }
        #expect(try Self.page(since: ChangeCursor(publicPosition: 3, ownPosition: nil), viewer: nil, horizon: 3).changes.count == 1)
        #expect(try Self.page(since: nil, viewer: nil, horizon: 3).changes.count == 3)
    }

    @Test func cursorsReadBackAsWritten() {
        for text in ["0", "12", "12.0", "123456789012345678.5"] { #expect(ChangeCursor(text)?.description == text) }
        for text in ["", ".", "1.", ".1", "1.2.3", "-1", "1e3", "1234567890123456789", " 1"] { #expect(ChangeCursor(text) == nil, "\(text)") }
    }
}
