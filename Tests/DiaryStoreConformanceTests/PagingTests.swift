import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Testing

@Suite struct PagingTests {
    /// The count at or above a position is the position's place in the newest-first list,
    /// plus one: ties in one second broken by id, others' private entries left out, filters and
    /// the diary kept, page and position ignored.
    @Test(arguments: StoreFactory.all) func countsTheEntriesAtOrAboveAPosition(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            var written: [Entry] = []
            for (step, count) in [(0.0, 4), (60.0, 3), (-120.0, 2)] {
                clock.advance(seconds: step)
                for n in 0..<count {
                    written.append(try store.createEntry(userID: alice.id, diaryID: nil, title: "t", body: "", tags: n % 2 == 0 ? ["even"] : []))
                }
            }
            // Bob's private entry in the busiest second counts for bob only.
            clock.advance(seconds: 60)
            let hidden = try store.createEntry(userID: bob.id, diaryID: nil, title: "t", body: "", created: written[4].created, visibility: .private)
            let listed = written.sorted { ($0.created, $0.id) > ($1.created, $1.id) }
            var query = EntryQuery(page: PageRequest(page: 3, perPage: 1), position: .after(created: listed[0].created, id: listed[0].id))
            for (place, entry) in listed.enumerated() {
                #expect(try store.countEntries(query, atOrAbove: entry.created, id: entry.id) == place + 1, "\(place)")
            }
            query.viewerID = bob.id
            #expect(try store.countEntries(query, atOrAbove: hidden.created, id: hidden.id) == listed.filter { ($0.created, $0.id) >= (hidden.created, hidden.id) }.count + 1)

            let tagged = EntryQuery(filter: EntryFilter(tags: ["even"]))
            let even = listed.filter { $0.tags == ["even"] }
            for (place, entry) in even.enumerated() {
                #expect(try store.countEntries(tagged, atOrAbove: entry.created, id: entry.id) == place + 1)
            }
            let diaryID = written[0].diaryID
            #expect(try store.countEntries(EntryQuery(diaryID: diaryID), atOrAbove: listed[8].created, id: listed[8].id) == 9)
            #expect(try store.countEntries(EntryQuery(diaryID: diaryID + 100), atOrAbove: listed[8].created, id: listed[8].id) == 0)
        }
    }

    /// 3 entries at 04:30:00, 2 at 04:31:00, 2 at 04:29:00 (the clock goes back): newest first,
    /// and entries of the same second by id, highest first.
    @Test(arguments: StoreFactory.all) func newestFirstWithTiesBrokenByIDDescending(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            var written: [Entry] = []
            for (step, count) in [(0.0, 3), (60.0, 2), (-120.0, 2)] {
                clock.advance(seconds: step)
                for _ in 0..<count {
                    written.append(try store.createEntry(userID: alice.id, diaryID: nil, title: "t", body: ""))
                }
            }
            let expected = written.sorted { ($0.created, $0.id) > ($1.created, $1.id) }.map(\.id)
            let ids = written.map(\.id)
            #expect(expected == [ids[4], ids[3], ids[2], ids[1], ids[0], ids[6], ids[5]])

            let all = try store.entries(diaryID: nil, page: newestFirstPage)
            #expect(all.entries.map(\.id) == expected)
            #expect(all.entries == expected.map { id in written.first { $0.id == id }! })

            var collected: [Int64] = []
            for number in 1...4 {
                let page = try store.entries(diaryID: nil, page: PageRequest(page: number, perPage: 2))
                #expect(page.page == number)
                #expect(page.perPage == 2)
                #expect(page.total == 7)
                #expect(page.prevPage == (number > 1 ? number - 1 : nil))
                #expect(page.nextPage == (number < 4 ? number + 1 : nil))
                #expect(page.entries.count == (number < 4 ? 2 : 1))
                collected += page.entries.map(\.id)
            }
            #expect(collected == expected)

            let beyond = try store.entries(diaryID: nil, page: PageRequest(page: 9, perPage: 2))
            #expect(beyond.entries.isEmpty)
            #expect(beyond.total == 7)
            #expect(beyond.nextPage == nil)
            #expect(beyond.prevPage == 8)

            // Pages the API would refuse do not turn into "no limit".
            #expect(try store.entries(diaryID: nil, page: PageRequest(page: 0, perPage: 2)).entries.count == 2)
            #expect(try store.entries(diaryID: nil, page: PageRequest(page: 1, perPage: -1)).entries.isEmpty)
            #expect(try store.entries(diaryID: nil, page: PageRequest(page: Int.max, perPage: 100)).entries.isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all) func oneDiarysEntriesOnly(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let travel = try store.createDiary(ownerID: alice.id, title: "Travel")
            var inTravel: [Int64] = []
            for i in 0..<9 {
                clock.advance(seconds: 1)
                switch i % 3 {
                case 0: inTravel.append(try store.createEntry(userID: alice.id, diaryID: travel.id, title: "\(i)", body: "").id)
                case 1: _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "\(i)", body: "")
                default: _ = try store.createEntry(userID: bob.id, diaryID: nil, title: "\(i)", body: "")
                }
            }
            let page1 = try store.entries(diaryID: travel.id, page: PageRequest(page: 1, perPage: 2))
            #expect(page1.total == 3)
            #expect(page1.entries.map(\.id) == [inTravel[2], inTravel[1]])
            #expect(page1.nextPage == 2)
            let page2 = try store.entries(diaryID: travel.id, page: PageRequest(page: 2, perPage: 2))
            #expect(page2.entries.map(\.id) == [inTravel[0]])
            #expect(page2.nextPage == nil)
            #expect(page2.prevPage == 1)

            let empty = try store.createDiary(ownerID: bob.id, title: "Empty")
            let none = try store.entries(diaryID: empty.id, page: PageRequest())
            #expect(none.entries.isEmpty)
            #expect(none.total == 0)
            #expect(none.nextPage == nil)
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 9)
        }
    }

}
