import DiaryAPI
import DiaryPages
import DiaryStore
import Foundation
import HTTPCore
import HTTPTypes

// MARK: - Reading pages and feeds

extension DiaryApplication {
    /// The pages people read (`/`, `/diaries/{id}`, `/entries/{id}`, `/tags/{tag}`, `/search`),
    /// the Atom feeds and the stylesheet, beside the API on the same port. Every page is an
    /// anonymous read kept in the same response cache as the API's answers.
    static func addPages(to router: inout Router, handlers h: Handlers, cache: ResponseCache?, site: SiteAddress, pages: PageRenderer) {
        addLists(to: &router, handlers: h, cache: cache, pages: pages)
        addFeeds(to: &router, handlers: h, cache: cache, site: site, pages: pages)
        router.add(StylesheetRoute.route(pages: pages))
    }

    /// The pages that list entries (the newest, a diary's, a tag's, a search's) and an entry's own page.
    private static func addLists(to router: inout Router, handlers h: Handlers, cache: ResponseCache?, pages: PageRenderer) {
        router.addPage(SitePaths.Route.home, cache: cache, pages: pages) { context throws(Problem) in
            let filter = EntryFilter(cursor: try cursor(context))
            let (listing, lastModified) = try h.listing(.newest, diaryID: nil, filter: filter, path: SitePaths.home(cursor:))
            return PageBody(bytes: pages.list(listing), lastModified: lastModified)
        }
        router.addPage(SitePaths.Route.diary, cache: cache, pages: pages) { context throws(Problem) in
            let id = try pathID(context, "diary_id", subject: "diary")
            let diary = try h.found("diary \(id)") { () throws(StoreError) in try h.store.diary(id: id, viewerID: nil) }
            let filter = EntryFilter(cursor: try cursor(context))
            let (listing, lastModified) = try h.listing(.diary(diary), diaryID: id, filter: filter) { SitePaths.diary(id, cursor: $0) }
            return PageBody(bytes: pages.list(listing), lastModified: lastModified)
        }
        router.addPage(SitePaths.Route.entry, cache: cache, pages: pages) { context throws(Problem) in
            let id = try pathID(context, "entry_id", subject: "entry")
            let (reading, lastModified) = try h.reading(entryID: id)
            return PageBody(bytes: pages.entry(reading), lastModified: lastModified)
        }
        router.addPage(SitePaths.Route.tag, cache: cache, pages: pages) { context throws(Problem) in
            let tag: String
            switch TagRules.tag(context.pathParameters["tag"] ?? "", field: "tag") {
            case .success(let valid): tag = valid
            case .failure(let error): throw .badRequest("This is not a tag: a tag \(error.message).")
            }
            let filter = EntryFilter(tags: [tag], cursor: try cursor(context))
            let (listing, lastModified) = try h.listing(.tag(tag), diaryID: nil, filter: filter) { SitePaths.tag(tag, cursor: $0) }
            return PageBody(bytes: pages.list(listing), lastModified: lastModified)
        }
        router.addPage(SitePaths.Route.search, cache: cache, pages: pages) { context throws(Problem) in
            guard let query = try context.query("q"), !query.allSatisfy(\.isWhitespace) else {
                return PageBody(bytes: pages.list(EntryListing(subject: .search(query: nil, problem: nil), entries: [], total: 0)))
            }
            do throws(SearchQuery.SyntaxError) {
                _ = try SearchQuery.terms(of: query)
            } catch {
                // The form again, saying what is wrong, with the status a bad query gets.
                let listing = EntryListing(subject: .search(query: query, problem: "The search \(error.message)."), entries: [], total: 0)
                return PageBody(status: 400, bytes: pages.list(listing))
            }
            let filter = EntryFilter(query: query, cursor: try cursor(context))
            // A page is anonymous whatever the request sends: it counts against the address.
            let (listing, lastModified) = try h.admission.admit(address: context.clientAddress, anonymous: true) { () throws(Problem) in
                try h.listing(.search(query: query, problem: nil), diaryID: nil, filter: filter) { SitePaths.search(query, cursor: $0) }
            }
            return PageBody(bytes: pages.list(listing), lastModified: lastModified)
        }
    }

    /// The Atom feeds: every diary's newest public entries, and one diary's.
    private static func addFeeds(to router: inout Router, handlers h: Handlers, cache: ResponseCache?, site: SiteAddress, pages: PageRenderer) {
        router.addPage(SitePaths.Route.feed, cache: cache, pages: pages) { _ throws(Problem) in
            let (entries, updated) = try h.feedEntries(diaryID: nil)
            let feed = AtomFeed(
                title: "\(pages.siteName): newest entries", baseURL: site.url, selfPath: SitePaths.feed, alternatePath: SitePaths.home,
                updated: updated ?? Date(timeIntervalSince1970: 0), entries: entries
            )
            return PageBody(bytes: feed.render(), contentType: "\(AtomFeed.mediaType); charset=utf-8", lastModified: updated)
        }
        router.addPage(SitePaths.Route.diaryFeed, cache: cache, pages: pages) { context throws(Problem) in
            let id = try pathID(context, "diary_id", subject: "diary")
            let diary = try h.found("diary \(id)") { () throws(StoreError) in try h.store.diary(id: id, viewerID: nil) }
            let (entries, updated) = try h.feedEntries(diaryID: id)
            let feed = AtomFeed(
                title: diary.title, baseURL: site.url, selfPath: SitePaths.diaryFeed(id), alternatePath: SitePaths.diary(id),
                updated: updated ?? diary.updated, entries: entries
            )
            return PageBody(bytes: feed.render(), contentType: "\(AtomFeed.mediaType); charset=utf-8", lastModified: updated ?? diary.updated)
        }
    }

    /// The `cursor` of a list page's address; an empty one is no cursor.
    private static func cursor(_ context: PageContext) throws(Problem) -> String? {
        guard let cursor = try context.query("cursor"), !cursor.isEmpty else { return nil }
        return cursor
    }

    /// A numeric id from the path; anything else is no such page.
    private static func pathID(_ context: PageContext, _ name: String, subject: String) throws(Problem) -> Int64 {
        guard let text = context.pathParameters[name], let id = Int64(text), id > 0, String(id) == text else {
            throw .notFound("There is no \(subject) here.")
        }
        return id
    }
}

/// `/style.css`: the stylesheet, made once. Asked for at the version pages link
/// (`?v=…`), it may be kept for a year (a new stylesheet has a new address); at any other,
/// it must be checked again each time.
enum StylesheetRoute {
    private static func representation(immutable: Bool) -> Representation {
        var headers = HTTPFields.standard(contentType: "text/css; charset=utf-8", cacheable: true)
        if immutable { headers[.cacheControl] = "public, max-age=31536000, immutable" }
        return Representation(headers: headers, body: Stylesheet.bytes, lastModified: nil)
    }

    private static let versioned = representation(immutable: true)
    private static let unversioned = representation(immutable: false)

    /// The route; a `v` sent twice is an error page (`QueryParameters`), as a page's parameter is.
    static func route(pages: PageRenderer) -> Router.Route {
        Router.Route(method: .get, path: SitePaths.Route.stylesheet) { request, _ in
            let query = request.queryItems()?.map { (name: $0.name, value: $0.value) } ?? []
            do throws(ParameterError) {
                let current = try QueryParameters.value(of: "v", in: query) == Stylesheet.version
                return (current ? versioned : unversioned).answer(to: request)
            } catch {
                return Response(errorPage: .invalidParameter(error), pages: pages)
            }
        }
    }
}
