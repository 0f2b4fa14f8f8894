import DiaryAPI
import DiaryTerminal
import Synchronization
import Terminal

/// `diary browse`'s loop: it owns the terminal, feeds keys, resizes and fetched pages to
/// `BrowserState`, and draws its screen. Pages are fetched in tasks of their own, so that keys
/// keep working while one is on its way; each answer wakes the loop.
public final class Browser {
    private let source: any EntrySource
    private var state: BrowserState
    private let answers = Answers()

    public init(source: any EntrySource, listing: Listing, style: DisplayStyle) {
        self.source = source
        let size = Terminal.size(of: .output) ?? (80, 24)
        state = BrowserState(listing: listing, sourceName: source.name, style: style, columns: size.columns, rows: size.rows)
    }

    /// Runs until the user quits or a signal ends it; returns the exit status (0 for `q`, 130 for
    /// Ctrl-C, 128 + the signal's number for a signal). The terminal is restored whatever happens.
    public func run() throws(TerminalError) -> Int32 {
        let events = try TerminalEvents()
        defer { events.close() }
        let session = try TerminalSession()
        defer { session.restore() }

        var commands = state.start()
        while true {
            for command in commands {
                switch command {
                case .load(let load): fetch(load, waking: events)
                case .quit(let status): return status
                }
            }
            session.write(Self.frame(state.screen()))
            commands = []
            for event in events.next() {
                switch event {
                case .keys(let keys):
                    for key in keys { commands += state.handle(key) }
                case .resized:
                    if let size = Terminal.size(of: .output) { state.resize(columns: size.columns, rows: size.rows) }
                case .terminate(let signal):
                    return 128 + signal
                case .woken:
                    for answer in answers.take() {
                        commands += state.received(answer.load, answer.result, imageSizes: answer.imageSizes)
                    }
                    state.sourceName = source.name
                }
            }
        }
    }

    private func fetch(_ load: PageLoad, waking events: TerminalEvents) {
        let source = source
        Task.detached { [answers] in
            let result: Result<EntryPage, EntrySourceError>
            var sizes: [String: (width: Int, height: Int)] = [:]
            do throws(EntrySourceError) {
                if load.refresh { try await source.refresh() }
                let page = try await source.page(of: load.listing, after: load.cursor, count: BrowserState.pageSize)
                sizes = await source.imageSizes(in: page.entries)
                result = .success(page)
            } catch {
                result = .failure(error)
            }
            answers.add(Answer(load: load, result: result, imageSizes: sizes))
            events.wake()
        }
    }

    /// The escapes that draw `lines` over the whole screen: each line at its row, the rest of
    /// the row cleared; one write, so that the screen never shows half a frame.
    static func frame(_ lines: [String]) -> String {
        var out = ""
        for (index, line) in lines.enumerated() {
            out += "\u{1B}[\(index + 1);1H" + line + "\u{1B}[K"
        }
        return out
    }
}

/// A fetched page, with the sizes of the images its entries show.
private struct Answer: Sendable {
    var load: PageLoad
    var result: Result<EntryPage, EntrySourceError>
    var imageSizes: [String: (width: Int, height: Int)]
}

/// Fetched pages on their way from the fetching tasks to the loop.
private final class Answers: Sendable {
    private let queue = Mutex<[Answer]>([])

    func add(_ answer: Answer) {
        queue.withLock { $0.append(answer) }
    }

    func take() -> [Answer] {
        queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }
}
