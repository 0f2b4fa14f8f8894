import DiaryAPI

extension PageRenderer {
    /// A list page: `/`, `/diaries/{id}`, `/tags/{tag}` or `/search`. 20 entries, each with its
    /// title (a link), date, author and diary, and an excerpt (a search shows its snippet with
    /// the matches in `<mark>`), then the links to newer and older entries.
    public func list(_ listing: EntryListing) -> [UInt8] {
        var frame = Frame(title: siteName)
        let heading: String
        var meta: String?
        switch listing.subject {
        case .newest:
            frame.showsSiteNameInTitle = false
            frame.current = .newest
            frame.feed = ("\(siteName): newest entries", SitePaths.feed)
            heading = "Newest entries"
            frame.title = listing.newerPath == nil ? siteName : "Older entries · \(siteName)"
        case .diary(let diary):
            frame.title = diary.title
            frame.feed = (diary.title, SitePaths.diaryFeed(diary.id))
            heading = diary.title
            meta = "by \(diary.owner) · \(Self.count(listing.total))"
        case .tag(let tag):
            frame.title = "#\(tag)"
            frame.feed = ("\(siteName): newest entries", SitePaths.feed)
            heading = "Entries tagged #\(tag)"
            meta = Self.count(listing.total)
        case .search(let query, _):
            frame.title = query.map { "Search: \($0)" } ?? "Search"
            frame.current = .search
            frame.noindex = true
            frame.feed = ("\(siteName): newest entries", SitePaths.feed)
            heading = "Search"
            if query != nil { meta = Self.matchCount(listing) }
        }
        return document(frame) { out in
            out += "<header class=\"page-header\">\n<h1"
            if case .diary(let diary) = listing.subject { out += PageText.languageAttribute(diary.title) }
            out += ">"
            HTMLEscaping.append(heading, to: &out)
            out += "</h1>\n"
            if meta != nil || frame.feed != nil {
                out += "<p class=\"page-meta\">"
                if let meta {
                    HTMLEscaping.append(meta, to: &out)
                }
                if case .diary(let diary) = listing.subject {
                    out += " · "
                    Self.link(SitePaths.diaryFeed(diary.id), "Atom feed", into: &out)
                }
                out += "</p>\n"
            }
            out += "</header>\n"
            if case .search(let query, let problem) = listing.subject {
                searchForm(query: query, problem: problem, into: &out)
            }
            entries(listing, into: &out)
            pager(listing, into: &out)
        }
    }

    static func count(_ total: Int) -> String {
        total == 1 ? "1 entry" : "\(total) entries"
    }

    /// "1 entry matches", "57 entries match", or "1,000+ entries match" past the count's bound.
    static func matchCount(_ listing: EntryListing) -> String {
        guard listing.totalIsEstimate else { return listing.total == 1 ? "1 entry matches" : "\(listing.total) entries match" }
        return "\(EntryPage.totalText(listing.total, isEstimate: true)) entries match"
    }

    /// The search form: a GET to `/search` with `q`. `id="search-form"`, the field `id="search-q"`.
    func searchForm(query: String?, problem: String?, into out: inout String) {
        out += "<form class=\"search-form\" id=\"search-form\" role=\"search\" action=\"\(SitePaths.search)\" method=\"get\">\n"
        out += "<label for=\"search-q\">Words or \"a phrase\" in titles and bodies</label>\n<div class=\"search-row\">"
        out += "<input type=\"search\" id=\"search-q\" name=\"q\" maxlength=\"\(SearchQuery.maxLength)\" required"
        if let query {
            out += " value=\""
            HTMLEscaping.append(query, to: &out)
            out += "\""
        }
        if problem != nil { out += " aria-invalid=\"true\" aria-describedby=\"search-error\"" }
        out += "><button type=\"submit\">Search</button></div>\n"
        if let problem {
            out += "<p class=\"form-error\" id=\"search-error\" role=\"alert\">"
            HTMLEscaping.append(problem, to: &out)
            out += "</p>\n"
        }
        out += "</form>\n"
    }

    private func entries(_ listing: EntryListing, into out: inout String) {
        guard !listing.entries.isEmpty else {
            let text: String
            switch listing.subject {
            case .search(nil, _), .search(_, .some): return
            case .search: text = "No entry matches these words."
            case .tag: text = "No public entry carries this tag."
            case .diary: text = "This diary has no public entries yet."
            case .newest: text = listing.newerPath == nil ? "Nobody has written anything public yet." : "No older entries."
            }
            out += "<p class=\"empty\" id=\"no-entries\">"
            HTMLEscaping.append(text, to: &out)
            out += "</p>\n"
            return
        }
        var showsDiary = true
        if case .diary = listing.subject { showsDiary = false }
        out += "<ol class=\"entry-list\" id=\"entry-list\">\n"
        for entry in listing.entries {
            out += "<li class=\"entry-item\">\n<article class=\"entry-summary\"\(PageText.languageAttribute(entry.title, entry.body))>\n"
            out += "<h2 class=\"entry-title\">"
            Self.link(SitePaths.entry(entry.id), entry.title, into: &out)
            out += "</h2>\n<p class=\"entry-meta\">"
            Self.time(entry.created, text: PageText.day(entry.created), into: &out)
            out += " · <span class=\"entry-author\">"
            HTMLEscaping.append(entry.author, to: &out)
            out += "</span>"
            if showsDiary {
                out += " · "
                Self.link(SitePaths.diary(entry.diaryID), listing.diaryTitles[entry.diaryID] ?? "diary \(entry.diaryID)", attributes: " class=\"entry-diary\"", into: &out)
            }
            out += "</p>\n"
            if let snippet = entry.snippet {
                out += "<p class=\"entry-snippet\">\(SafeMarkdown.snippet(snippet))</p>\n"
            } else {
                let excerpt = SafeMarkdown.excerpt(SafeMarkdown.plainText(ofHTML: SafeMarkdown.html(entry.body)))
                if !excerpt.isEmpty {
                    out += "<p class=\"entry-excerpt\">"
                    HTMLEscaping.append(excerpt, to: &out)
                    out += "</p>\n"
                }
            }
            Self.tags(entry.tags, into: &out)
            out += "</article>\n</li>\n"
        }
        out += "</ol>\n"
    }

    /// "Newer entries" (`id="newer-entries"`, `rel="prev"`) and "Older entries" (`id="older-entries"`, `rel="next"`).
    private func pager(_ listing: EntryListing, into out: inout String) {
        guard listing.newerPath != nil || listing.olderPath != nil else { return }
        out += "<nav class=\"pager\" aria-label=\"More entries\">\n"
        if let newer = listing.newerPath {
            Self.link(newer, "← Newer entries", attributes: " class=\"pager-newer\" id=\"newer-entries\" rel=\"prev\"", into: &out)
            out += "\n"
        }
        if let older = listing.olderPath {
            Self.link(older, "Older entries →", attributes: " class=\"pager-older\" id=\"older-entries\" rel=\"next\"", into: &out)
            out += "\n"
        }
        out += "</nav>\n"
    }
}
