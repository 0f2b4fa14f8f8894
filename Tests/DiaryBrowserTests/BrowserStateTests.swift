import DiaryAPI
import DiaryBrowser
import DiaryTerminal
import Foundation
import Terminal
import Testing

/// `BrowserState` driven the way the loop drives it: keys, answers and window sizes in, commands
/// and screens out; no terminal and no server.
@Suite struct BrowserStateTests {
    /// Entries `count` down to 1, newest first, one minute apart; every third title Japanese.
    static func entries(_ ids: ClosedRange<Int>) -> [Entry] {
        ids.reversed().map { id in
            let created = Date(timeIntervalSince1970: 1_790_000_000 + Double(id) * 60)
            let title = id % 3 == 0 ? "京都の紅葉と古い寺を歩いた日 \(id)" : "Entry \(id)"
            return Entry(id: Int64(id), diaryID: 1, author: "alice", title: title, body: "Body of **\(id)**.", created: created, updated: created,
                         visibility: id == 27 ? .private : id == 26 ? .unlisted : .public)
        }
    }

    /// A state whose first page (entries 50…21) has arrived, with a cursor to the rest.
    func loaded(columns: Int = 80, rows: Int = 24) -> (BrowserState, PageLoad?) {
        var state = BrowserState(listing: Listing(), sourceName: "http://diary.test", style: .plain, columns: columns, rows: rows)
        guard case .load(let load) = state.start().first else {
            Issue.record("no first load")
            return (state, nil)
        }
        #expect(load.cursor == nil)
        let page = EntryPage(entries: Self.entries(21...50), page: 1, perPage: 30, total: 50, nextCursor: "c2")
        #expect(state.received(load, .success(page)).isEmpty)
        return (state, load)
    }

    @Test func movingAndPagingStayWithinTheList() {
        var (state, _) = loaded()
        #expect(state.selected == 0)
        _ = state.handle(.up)
        #expect(state.selected == 0)
        _ = state.handle(.character("j"))
        _ = state.handle(.down)
        #expect(state.selected == 2)
        _ = state.handle(.pageDown)
        #expect(state.selected == 24)
        _ = state.handle(.character("b"))
        #expect(state.selected == 2)
        _ = state.handle(.character("g"))
        #expect(state.selected == 0)
    }

    @Test func nearingTheEndFetchesTheNextPageOnceAndAppendsIt() {
        var (state, first) = loaded()
        let commands = state.handle(.character("G"))
        #expect(state.selected == 29)
        guard case .load(let next) = commands.first else { Issue.record("no fetch at the end: \(commands)"); return }
        #expect(next.cursor == "c2" && next.generation == first?.generation)
        // While it is on its way: keys work, no second fetch, a loading row under the last entry.
        #expect(state.handle(.up).isEmpty && state.handle(.down).isEmpty)
        #expect(state.screen().contains("  loading more entries…"))
        #expect(state.received(next, .success(EntryPage(entries: Self.entries(1...20), page: 2, perPage: 30, total: 50))).isEmpty)
        #expect(state.entries.count == 50 && state.entries.last?.id == 1)
        _ = state.handle(.end)
        #expect(state.selected == 49)
        #expect(state.screen().last?.contains("50 of 50") == true)
    }

    /// A search past the server's count bound says so, as the CLI and the pages do.
    @Test func anEstimatedTotalIsShownWithAPlus() {
        var state = BrowserState(listing: Listing(), sourceName: "http://diary.test", style: .plain, columns: 80, rows: 24)
        guard case .load(let load) = state.start().first else { Issue.record("no first load"); return }
        let page = EntryPage(entries: Self.entries(21...50), page: 1, perPage: 30, total: 10_000, nextCursor: "c2",
                             totalIsEstimate: true, moreFollow: true)
        _ = state.received(load, .success(page))
        #expect(state.screen().last?.contains("1 of 10,000+") == true, "\(state.screen().last ?? "")")
    }

    @Test func anAnswerToAnOlderListingIsDropped() {
        var (state, _) = loaded()
        guard case .load(let stale) = state.handle(.character("G")).first else { Issue.record("no fetch"); return }
        // A search starts over before the page arrives.
        for key in [Key.character("/"), .character("京"), .character("都"), .enter] { _ = state.handle(key) }
        #expect(state.listing.query == "京都" && state.entries.isEmpty)
        #expect(state.received(stale, .success(EntryPage(entries: Self.entries(1...20), page: 2, perPage: 30, total: 50))).isEmpty)
        #expect(state.entries.isEmpty)
        #expect(state.screen()[1] == "  loading…")
    }

    @Test func searchTypedAfterSlashAndClearedWithEscape() {
        var (state, _) = loaded()
        var commands: [BrowserCommand] = []
        for key in [Key.character("/"), .character("t"), .character("e"), .character("x"), .backspace, .character("a"), .enter] {
            commands += state.handle(key)
        }
        guard case .load(let search) = commands.last else { Issue.record("no search: \(commands)"); return }
        #expect(search.listing.query == "tea" && search.cursor == nil)
        #expect(state.screen()[0] == " Diary · search \"tea\"")
        _ = state.received(search, .success(EntryPage(entries: [], page: 1, perPage: 30, total: 0)))
        #expect(state.screen()[1] == "  nothing found for \"tea\"")
        guard case .load(let cleared) = state.handle(.escape).first else { Issue.record("Esc did not clear the search"); return }
        #expect(cleared.listing == Listing())
        // A query the server would refuse never leaves the prompt.
        for key in [Key.character("/"), .character("\""), .enter] { #expect(state.handle(key).isEmpty) }
        #expect(state.message?.contains("search") == true)
    }

    @Test func anEntryOpensScrollsAndGoesBack() {
        var (state, _) = loaded(columns: 40, rows: 10)
        _ = state.handle(.down)
        _ = state.handle(.enter)
        #expect(state.reader?.entry.id == 49)
        let screen = state.screen()
        #expect(screen[0] == " Diary · entry 49")
        #expect(screen[1] == " Entry 49")
        #expect(screen.contains(" Body of 49."))
        #expect(state.handle(.character("q")).isEmpty)
        #expect(state.reader == nil && state.selected == 1)
        // q on the list quits; Ctrl-C quits anywhere with 130.
        _ = state.handle(.right)
        #expect(state.handle(.control("c")) == [.quit(status: 130)])
        _ = state.handle(.left)
        #expect(state.handle(.character("q")) == [.quit(status: 0)])
    }

    @Test func everyScreenFitsTheWindowWithJapaneseTitles() {
        for (columns, rows) in [(80, 24), (50, 20), (33, 8)] {
            var (state, _) = loaded(columns: columns, rows: rows)
            _ = state.handle(.down)
            for screen in [state.screen(), { var open = state; _ = open.handle(.enter); return open.screen() }()] {
                #expect(screen.count == rows)
                for (index, line) in screen.enumerated() {
                    #expect(DisplayWidth.of(line) <= (index == rows - 1 ? columns - 1 : columns), "\(columns)×\(rows) row \(index): \(line)")
                }
            }
            // Titles start in the same column whatever their script.
            let rowsShown = state.screen().dropFirst().prefix(3)
            let starts = Set(rowsShown.map { DisplayWidth.of(String($0.prefix(20))) })
            #expect(starts == [20])
        }
    }

    @Test func aResizeLaysTheEntryOutAgain() {
        var (state, _) = loaded(columns: 80, rows: 24)
        _ = state.handle(.enter)
        let wide = state.reader?.lines.count ?? 0
        state.resize(columns: 24, rows: 10)
        #expect((state.reader?.lines.count ?? 0) > wide)
        #expect(state.screen().count == 10)
        #expect(state.screen().allSatisfy { DisplayWidth.of($0) <= 24 })
    }

    @Test func aFailedFetchIsShownAndReloadTriesAgain() {
        var state = BrowserState(listing: Listing(tag: "travel"), sourceName: "http://diary.test", style: .plain, columns: 80, rows: 24)
        guard case .load(let load) = state.start().first else { return }
        _ = state.received(load, .failure(EntrySourceError("cannot reach the diary server at http://diary.test: Connection refused")))
        let screen = state.screen()
        #expect(screen[0] == " Diary · #travel")
        #expect(screen.last?.hasPrefix(" cannot reach the diary server") == true)
        guard case .load(let again) = state.handle(.character("r")).first else { Issue.record("r did not reload"); return }
        #expect(again.listing.tag == "travel" && again.generation > load.generation)
        // `r` asks the source to bring itself up to date first (a replica syncs), and says so.
        #expect(again.refresh && state.screen().last?.contains("refreshing…") == true)
        _ = state.received(again, .failure(EntrySourceError("sync failed: cannot reach the diary server")))
        #expect(state.screen().last?.hasPrefix(" sync failed: cannot reach the diary server · r reloads") == true)
    }

    @Test func markersAndTheSelectionWithColourAndWithout() {
        var (state, _) = loaded()
        _ = state.handle(.end)
        let plain = state.screen()
        #expect(plain.contains { $0.hasSuffix("Entry 28") } && plain.contains { $0.hasSuffix("Entry 26  [unlisted]") } && plain.contains { $0.hasSuffix("寺を歩いた日 27  [private]") })
        #expect(plain.contains { $0.hasPrefix("> ") })
        #expect(!plain.joined().contains("\u{1B}"))
        state.style.color = true
        #expect(state.screen().contains { $0.hasPrefix("\u{1B}[7m> ") })
    }
}
