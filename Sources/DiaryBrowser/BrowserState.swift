import DiaryAPI
import Foundation
import DiaryTerminal
import Terminal

/// A page the browser asked for. Its answer is used only while it is still the one awaited:
/// after a reload or a new search, answers to older requests are dropped.
public struct PageLoad: Sendable, Equatable {
    public var generation: Int
    public var listing: Listing
    public var cursor: String?
    /// Asked with `r` (pull to refresh): the source brings itself up to date first (a replica
    /// syncs), then answers the first page.
    public var refresh = false
}

/// What the browser's loop must do after a key or an answer.
public enum BrowserCommand: Sendable, Equatable {
    case load(PageLoad)
    case quit(status: Int32)
}

/// What `diary browse` shows and how keys and answers change it. No terminal and no network
/// here: the loop (`Browser`) feeds it, and tests drive it directly.
public struct BrowserState {
    /// Entries fetched at a time.
    public static let pageSize = 30

    // MARK: What is listed

    /// The listing asked for on the command line; a search narrows it, `Esc` returns to it.
    public let base: Listing
    public private(set) var listing: Listing
    /// Where the entries come from, for the status line; the loop updates it after each answer
    /// (a source that fell back to its replica names it "offline · synced …").
    public var sourceName: String
    public var style: DisplayStyle

    public private(set) var entries: [Entry] = []
    public private(set) var total = 0
    /// The server counted up to its bound and stopped: `total` is "1,000+".
    public private(set) var totalIsEstimate = false
    private var nextCursor: String?
    /// An answer for the current listing has arrived (the list may still be empty).
    public private(set) var hasLoaded = false
    /// The page being fetched, if any; keys keep working meanwhile.
    public private(set) var pending: PageLoad?
    private var generation = 0
    /// The last failure, shown in the status line until an answer arrives.
    public private(set) var message: String?

    // MARK: Where the reader is

    public private(set) var columns: Int
    public private(set) var rows: Int
    public private(set) var selected = 0
    /// The first list row on screen.
    private var top = 0
    /// The entry open on screen, if any.
    public private(set) var reader: EntryReader?
    /// Width and height of the site's images the listed entries show, by id, as the source
    /// found them with each page: an open entry shows them with its images.
    public private(set) var imageSizes: [String: (width: Int, height: Int)] = [:]
    /// The search being typed after `/`.
    public private(set) var prompt: String?
    public private(set) var showingHelp = false

    public init(listing: Listing, sourceName: String, style: DisplayStyle, columns: Int, rows: Int) {
        base = listing
        self.listing = listing
        self.sourceName = sourceName
        self.style = style
        self.columns = max(columns, 20)
        self.rows = max(rows, 5)
    }

    /// The rows between the header and the status line.
    var listHeight: Int { max(rows - 2, 1) }

    // MARK: Starting and answers

    /// The first page of the current listing; `refreshing`: after the source brings itself up
    /// to date (`r`).
    public mutating func start(refreshing: Bool = false) -> [BrowserCommand] {
        generation += 1
        message = nil
        let load = PageLoad(generation: generation, listing: listing, cursor: nil, refresh: refreshing)
        pending = load
        return [.load(load)]
    }

    /// An answer to `load`: the first page replaces the list, a later one extends it.
    /// `imageSizes` are those of the images its entries show, for the entries opened later.
    public mutating func received(
        _ load: PageLoad, _ result: Result<EntryPage, EntrySourceError>, imageSizes: [String: (width: Int, height: Int)] = [:]
    ) -> [BrowserCommand] {
        guard load == pending else { return [] }
        pending = nil
        switch result {
        case .success(let page):
            self.imageSizes.merge(imageSizes) { _, new in new }
            if load.cursor == nil {
                entries = page.entries
                selected = 0
                top = 0
            } else {
                entries += page.entries
            }
            total = max(page.total, entries.count)
            totalIsEstimate = page.totalIsEstimate
            nextCursor = page.entries.isEmpty ? nil : page.nextCursor
            hasLoaded = true
            message = nil
            return prefetch()
        case .failure(let error):
            message = error.message + " · r reloads"
            return []
        }
    }

    /// Fetches the next page once the selection is within half a screen of the last loaded row.
    private mutating func prefetch() -> [BrowserCommand] {
        guard pending == nil, hasLoaded, let cursor = nextCursor, selected >= entries.count - max(5, listHeight / 2) else { return [] }
        let load = PageLoad(generation: generation, listing: listing, cursor: cursor)
        pending = load
        return [.load(load)]
    }

    // MARK: Keys

    public mutating func handle(_ key: Key) -> [BrowserCommand] {
        if key == .control("c") { return [.quit(status: 130)] }
        if showingHelp {
            showingHelp = false
            return []
        }
        if prompt != nil { return handlePrompt(key) }
        if reader != nil {
            handleReader(key)
            return []
        }
        return handleList(key)
    }

    private mutating func handleList(_ key: Key) -> [BrowserCommand] {
        switch key {
        case .down, .character("j"): select(selected + 1)
        case .up, .character("k"): select(selected - 1)
        case .pageDown, .character(" "), .control("f"): select(selected + listHeight)
        case .pageUp, .character("b"), .control("b"): select(selected - listHeight)
        case .home, .character("g"): select(0)
        case .end, .character("G"): select(entries.count - 1)
        case .enter, .right, .character("l"): open()
        case .character("q"): return [.quit(status: 0)]
        case .escape where listing.query != nil:
            listing.query = nil
            return restart()
        case .character("/"): prompt = ""
        case .character("r"): return start(refreshing: true)
        case .character("?"): showingHelp = true
        default: break
        }
        return prefetch()
    }

    private mutating func handleReader(_ key: Key) {
        guard var reader else { return }
        let height = listHeight
        switch key {
        case .down, .character("j"), .enter: reader.scroll(to: reader.top + 1, height: height)
        case .up, .character("k"): reader.scroll(to: reader.top - 1, height: height)
        case .pageDown, .character(" "), .control("f"): reader.scroll(to: reader.top + height, height: height)
        case .pageUp, .character("b"), .control("b"): reader.scroll(to: reader.top - height, height: height)
        case .home, .character("g"): reader.scroll(to: 0, height: height)
        case .end, .character("G"): reader.scroll(to: Int.max / 2, height: height)
        case .character("q"), .escape, .left, .character("h"):
            self.reader = nil
            return
        case .character("?"): showingHelp = true
        default: break
        }
        self.reader = reader
    }

    private mutating func handlePrompt(_ key: Key) -> [BrowserCommand] {
        guard var text = prompt else { return [] }
        switch key {
        case .enter:
            prompt = nil
            let query = text.trimmingCharacters(in: .whitespaces)
            if query.isEmpty {
                guard listing.query != nil else { return [] }
                listing.query = nil
                return restart()
            }
            do {
                _ = try SearchQuery.terms(of: query)
            } catch {
                message = "the search \(error.message)"
                return []
            }
            listing.query = query
            return restart()
        case .escape:
            prompt = nil
            return []
        case .backspace:
            if !text.isEmpty { text.removeLast() }
        case .control("u"):
            text = ""
        case .character(let character):
            text.append(character)
        default:
            break
        }
        prompt = text
        return []
    }

    /// A new listing: the old rows go at once, so that nothing unsearched passes as a result.
    private mutating func restart() -> [BrowserCommand] {
        entries = []
        total = 0
        totalIsEstimate = false
        nextCursor = nil
        hasLoaded = false
        selected = 0
        top = 0
        return start()
    }

    private mutating func select(_ row: Int) {
        selected = max(0, min(row, entries.count - 1))
        if selected < top { top = selected }
        if selected >= top + listHeight { top = selected - listHeight + 1 }
    }

    private mutating func open() {
        guard entries.indices.contains(selected) else { return }
        reader = EntryReader(entry: entries[selected], style: style, columns: columns, imageSizes: imageSizes)
    }

    // MARK: The window

    /// A new window size: lists and the open entry are laid out again for it.
    public mutating func resize(columns: Int, rows: Int) {
        self.columns = max(columns, 20)
        self.rows = max(rows, 5)
        select(selected)
        if let old = reader {
            var relaid = EntryReader(entry: old.entry, style: style, columns: self.columns, imageSizes: imageSizes)
            // Keep the same part of the entry in view: the line at the top, by its share of the whole.
            let share = old.lines.isEmpty ? 0 : Double(old.top) / Double(old.lines.count)
            relaid.scroll(to: Int(share * Double(relaid.lines.count)), height: listHeight)
            reader = relaid
        }
    }

    /// The first list row on screen: the window keeps the selection in view, and the loading
    /// row below it when the selection is on the last row.
    var visibleTop: Int {
        var first = top
        if pending?.cursor != nil, selected == entries.count - 1 {
            first = max(first, entries.count + 1 - listHeight)
        }
        return max(0, min(first, selected))
    }
}

/// An entry open on screen: its lines laid out for the window, and how far it is scrolled.
public struct EntryReader {
    public let entry: Entry
    public private(set) var lines: [String]
    public private(set) var top = 0

    init(entry: Entry, style: DisplayStyle, columns: Int, imageSizes: [String: (width: Int, height: Int)]) {
        self.entry = entry
        // One column of margin on either side.
        lines = DisplayFormat.entryScreen(entry, style: style, width: max(columns - 2, 10), imageSizes: imageSizes)
    }

    mutating func scroll(to line: Int, height: Int) {
        top = max(0, min(line, lines.count - height))
    }
}
