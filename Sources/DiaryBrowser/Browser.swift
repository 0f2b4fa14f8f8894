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
                    for (load, result) in answers.take() {
                        commands += state.received(load, result)
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
            do throws(EntrySourceError) {
                if load.refresh { try await source.refresh() }
                result = .success(try await source.page(of: load.listing, after: load.cursor, count: BrowserState.pageSize))
            } catch {
                result = .failure(error)
            }
            answers.add(load, result)
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

/// Fetched pages on their way from the fetching tasks to the loop.
private final class Answers: Sendable {
    private let queue = Mutex<[(PageLoad, Result<EntryPage, EntrySourceError>)]>([])

    func add(_ load: PageLoad, _ result: Result<EntryPage, EntrySourceError>) {
        queue.withLock { $0.append((load, result)) }
    }

    func take() -> [(PageLoad, Result<EntryPage, EntrySourceError>)] {
        queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }
}
