import Foundation

/// The order of a list of entries.
public enum EntryOrder: String, Sendable, CaseIterable {
    /// Best match first (FTS5's bm25); only with a search query.
    case relevance
    /// `created` descending, then `entry_id` descending.
    case newest
}

/// What narrows a list of entries: `q`, `order`, `since`, `until`, `tag` (repeatable) and
/// `cursor`, shared by `ListEntries` and `ListDiaryEntries` on both sides of the wire.
public struct EntryFilter: Sendable, Equatable {
    /// The search query as sent; nil for no search.
    public var query: String?
    /// The order asked for; nil means relevance with a query, newest without.
    public var order: EntryOrder?
    /// Entries created at or after this time.
    public var since: Date?
    /// Entries created at or before this time (a plain date means the end of that day).
    public var until: Date?
    /// Entries carrying every one of these (normalised) tags.
    public var tags: [String]
    /// Continues a list after the page that answered it (`next_cursor`); `page` is then ignored.
    public var cursor: String?

    public init(query: String? = nil, order: EntryOrder? = nil, since: Date? = nil, until: Date? = nil, tags: [String] = [], cursor: String? = nil) {
        self.query = query
        self.order = order
        self.since = since
        self.until = until
        self.tags = tags
        self.cursor = cursor
    }

    /// The order in effect.
    public var effectiveOrder: EntryOrder { order ?? (query == nil ? .newest : .relevance) }

    /// The search terms of `query`; empty without one. The query was checked when parsed.
    public var terms: [String] { (try? query.map(SearchQuery.terms(of:))) ?? [] }

    /// A canonical text of everything but the cursor: a cursor is valid only for the filter it came from.
    public var fingerprint: String {
        [
            query ?? "", effectiveOrder.rawValue,
            since.map(RFC3339.string(from:)) ?? "", until.map(RFC3339.string(from:)) ?? "",
            tags.sorted().joined(separator: ","),
        ].joined(separator: "\u{1F}")
    }

    public var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let query { items.append(URLQueryItem(name: "q", value: query)) }
        if let order { items.append(URLQueryItem(name: "order", value: order.rawValue)) }
        if let since { items.append(URLQueryItem(name: "since", value: RFC3339.string(from: since))) }
        if let until { items.append(URLQueryItem(name: "until", value: RFC3339.string(from: until))) }
        items += tags.map { URLQueryItem(name: "tag", value: $0) }
        if let cursor { items.append(URLQueryItem(name: "cursor", value: cursor)) }
        return items
    }

    /// A `since` or `until` value: RFC 3339, or a plain date (`2026-11-01`) meaning that whole
    /// UTC day, so its start for `since` and its last second for `until`.
    public static func date(_ text: String, endOfDay: Bool) -> Date? {
        let bytes = Array(text.utf8)
        let isPlainDate = bytes.count == 10 && bytes.enumerated().allSatisfy { index, byte in
            index == 4 || index == 7 ? byte == UInt8(ascii: "-") : (48...57).contains(byte)
        }
        guard isPlainDate else { return RFC3339.date(from: text) }
        return RFC3339.date(from: text + (endOfDay ? "T23:59:59Z" : "T00:00:00Z"))
    }
}

/// The search query language: AND-ed terms, each a bare word, a `"quoted phrase"`, or a word
/// with a trailing `*` (a prefix; with substring search every term already matches inside words).
public enum SearchQuery {
    public struct SyntaxError: Error, Sendable, Equatable {
        public var message: String
    }

    /// The longest query, in Unicode code points (JSON Schema's `maxLength` counts the same).
    /// Each trigram of a term costs SQLite a walk of its posting list: 5,000 characters of
    /// common words took 17 s over 10,000 entries.
    public static let maxLength = 200
    /// The most distinct terms: each costs an index lookup or a scan of the entries, so a
    /// thousand repeated words held a thread for minutes. Repeats count once.
    public static let maxTerms = 8

    public static func terms(of query: String) throws(SyntaxError) -> [String] {
        guard query.unicodeScalars.count <= maxLength else {
            throw SyntaxError(message: "must be at most \(maxLength) characters")
        }
        var terms: [String] = []
        var current = ""
        var quoted = false
        func finishWord() {
            var word = current
            while word.hasSuffix("*") { word.removeLast() }
            if !word.isEmpty { terms.append(word) }
            current = ""
        }
        for character in query {
            if quoted {
                if character == "\"" {
                    let phrase = current.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !phrase.isEmpty { terms.append(phrase) }
                    current = ""
                    quoted = false
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                finishWord()
                quoted = true
            } else if character.isWhitespace {
                finishWord()
            } else {
                current.append(character)
            }
        }
        guard !quoted else { throw SyntaxError(message: "has a quote that is not closed") }
        finishWord()
        guard !terms.isEmpty else { throw SyntaxError(message: "must hold at least one word") }
        var seen = Set<String>()
        terms.removeAll { !seen.insert($0).inserted }
        guard terms.count <= maxTerms else {
            throw SyntaxError(message: "must hold at most \(maxTerms) different words or phrases")
        }
        return terms
    }
}

extension EndpointRequest {
    /// `q`, `order`, `since`, `until`, `tag` and `cursor` from the query, each checked.
    public func entryFilter() throws(ParameterError) -> EntryFilter {
        var filter = EntryFilter()
        if let query = try queryValue("q") {
            do {
                _ = try SearchQuery.terms(of: query)
            } catch {
                throw ParameterError(name: "q", message: error.message)
            }
            filter.query = query
        }
        if let text = try queryValue("order") {
            guard let order = EntryOrder(rawValue: text) else {
                throw ParameterError(name: "order", message: "must be relevance or newest, not '\(text.prefix(40))'")
            }
            guard order == .newest || filter.query != nil else {
                throw ParameterError(name: "order", message: "can be relevance only with a search query q")
            }
            filter.order = order
        }
        for (name, endOfDay) in [("since", false), ("until", true)] {
            guard let text = try queryValue(name) else { continue }
            guard let date = EntryFilter.date(text, endOfDay: endOfDay) else {
                throw ParameterError(name: name, message: "must be an RFC 3339 time or a date such as 2026-11-01, not '\(text.prefix(40))'")
            }
            if endOfDay { filter.until = date } else { filter.since = date }
        }
        if let since = filter.since, let until = filter.until, since > until {
            throw ParameterError(name: "since", message: "must not be after until")
        }
        // Each tag is one more condition in the query; past SQLite's expression depth that was
        // a 503, and no entry can match more tags than it may hold. Counted as sent, duplicates
        // included, as the contract's bound on an entry's `tags` is.
        var sent = 0
        for item in query where item.name == "tag" {
            sent += 1
            guard sent <= TagRules.maxPerEntry else {
                throw ParameterError(name: "tag", message: "must be given at most \(TagRules.maxPerEntry) times, as many tags as an entry holds")
            }
            switch TagRules.tag(item.value, field: "tag") {
            case .success(let tag): if !filter.tags.contains(tag) { filter.tags.append(tag) }
            case .failure(let error): throw ParameterError(name: "tag", message: error.message)
            }
        }
        if let cursor = try queryValue("cursor") {
            guard !cursor.isEmpty else { throw ParameterError(name: "cursor", message: "must not be empty") }
            filter.cursor = cursor
        }
        return filter
    }
}

/// A paged list that takes an `EntryFilter`.
public protocol FilteredEndpoint: PagedEndpoint {
    var filter: EntryFilter { get set }
}
