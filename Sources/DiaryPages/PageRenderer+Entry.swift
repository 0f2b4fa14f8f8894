import DiaryAPI

extension PageRenderer {
    /// An entry's page: its diary, title, author and date, the body rendered from Markdown
    /// (`id="entry-body"`), its tags, and links to the diary's previous and next public entries
    /// and back to the diary. An unlisted entry says so and is kept out of search engines.
    public func entry(_ reading: EntryReading) -> [UInt8] {
        let entry = reading.entry
        let diaryTitle = reading.diary?.title ?? "diary \(entry.diaryID)"
        var frame = Frame(title: entry.title)
        frame.feed = (diaryTitle, SitePaths.diaryFeed(entry.diaryID))
        frame.noindex = entry.visibility != .public
        return document(frame) { out in
            out += "<article class=\"entry\" id=\"entry\"\(PageText.languageAttribute(entry.title, entry.body))>\n"
            out += "<header class=\"entry-header\">\n<p class=\"entry-diary-name\">"
            Self.link(SitePaths.diary(entry.diaryID), diaryTitle, into: &out)
            out += "</p>\n<h1 class=\"entry-title\">"
            HTMLEscaping.append(entry.title, to: &out)
            out += "</h1>\n<p class=\"entry-meta\"><span class=\"entry-author\">"
            HTMLEscaping.append(entry.author, to: &out)
            out += "</span> · "
            Self.time(entry.created, text: PageText.dayAndTime(entry.created), into: &out)
            out += "</p>\n"
            if entry.visibility == .unlisted {
                out += "<p class=\"notice\" id=\"unlisted-notice\">Unlisted: this entry is in no list or feed; anyone with its address can read it.</p>\n"
            }
            out += "</header>\n<div class=\"entry-body\" id=\"entry-body\">\n"
            out += SafeMarkdown.html(entry.body, images: SiteImages(sizes: reading.imageSizes))
            out += "\n</div>\n"
            if !entry.tags.isEmpty {
                out += "<footer class=\"entry-footer\">\n"
                Self.tags(entry.tags, into: &out)
                out += "</footer>\n"
            }
            out += "</article>\n<nav class=\"entry-nav\" aria-label=\"More in this diary\">\n"
            if let previous = reading.previous {
                neighbour(previous, label: "← Previous", attributes: " class=\"entry-nav-prev\" id=\"previous-entry\" rel=\"prev\"", into: &out)
            }
            if let next = reading.next {
                neighbour(next, label: "Next →", attributes: " class=\"entry-nav-next\" id=\"next-entry\" rel=\"next\"", into: &out)
            }
            Self.link(SitePaths.diary(entry.diaryID), "All entries in \(diaryTitle)", attributes: " class=\"entry-nav-back\" id=\"back-to-list\"", into: &out)
            out += "\n</nav>\n"
        }
    }

    private func neighbour(_ entry: Entry, label: String, attributes: String, into out: inout String) {
        out += "<a\(attributes) href=\"\(SitePaths.entry(entry.id))\"><span class=\"label\">\(label)</span>"
        HTMLEscaping.append(entry.title, to: &out)
        out += "</a>\n"
    }
}
