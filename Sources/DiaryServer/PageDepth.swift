import DiaryAPI

/// How deep `page=` may reach: the entries a numbered page skips are read and dropped by the
/// database (an OFFSET), so `page=50000` of a million entries took 7.1 s. A page ending past
/// `maximumEntries` is refused with a 400 that names the cursor, which reaches any depth at
/// the cost of a first page, as GitHub's and WordPress's APIs cap deep pages. 10,000 entries
/// is 500 pages of the default 20 and took 13 ms to skip at a million entries on 2 cores.
enum PageDepth {
    static let maximumEntries = 10_000

    /// Whether `page` ends within the cap.
    static func allows(_ page: PageRequest) -> Bool {
        let (end, overflow) = page.page.multipliedReportingOverflow(by: page.perPage)
        return !overflow && end <= maximumEntries
    }

    /// The 400 for a page past the cap, pointing to the cursor.
    static func problem(_ page: PageRequest) -> Problem {
        .invalidParameter(ParameterError(
            name: "page",
            message: "reaches past entry \(maximumEntries) (page × per_page): follow next_cursor from an earlier page to read further"
        ))
    }

    /// `entryPage` with no `next_page` that would be past the cap: a client that follows it
    /// never gets the 400, and the `next_cursor` stays.
    static func capped(_ entryPage: EntryPage) -> EntryPage {
        var capped = entryPage
        if let next = capped.nextPage, !allows(PageRequest(page: next, perPage: capped.perPage)) {
            capped.nextPage = nil
        }
        return capped
    }
}
