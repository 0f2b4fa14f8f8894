import Foundation

/// What an AtomPub client sends to create or replace an entry, as read from its XML: the
/// fields Hatena Blog reads, nothing checked yet against the diary's rules (the server does
/// that as for the JSON API).
public struct AtomEntryDocument: Sendable, Equatable {
    /// `atom:title`; empty when absent.
    public var title: String
    /// `atom:content` as text: Markdown (`text/x-markdown`), or text of another textual type.
    public var body: String
    /// The `term` of each `atom:category`, in order.
    public var tags: [String]
    /// `atom:updated`: the entry's date (nil: now, or unchanged on a replace).
    public var date: Date?
    /// `app:control/app:draft` is `yes`.
    public var draft: Bool

    public init(title: String = "", body: String = "", tags: [String] = [], date: Date? = nil, draft: Bool = false) {
        self.title = title
        self.body = body
        self.tags = tags
        self.date = date
        self.draft = draft
    }
}
