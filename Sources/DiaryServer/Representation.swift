import DiaryAPI
import Foundation
import HTTPCore
import HTTPTypes

/// The full answer to a GET, with the validators a conditional request is checked against:
/// what the response cache keeps, so that a kept answer is checked the same way as a new one.
struct Representation: Sendable {
    /// The 200 response, `ETag` and `Last-Modified` included.
    let response: Response
    let tag: String
    let lastModified: Date?

    /// Adds `ETag` (and `Last-Modified` when known) to a 200 response of `body`.
    init(headers: HTTPFields, body: [UInt8], lastModified: Date?) {
        var headers = headers
        tag = EntityTag.of(body)
        headers.add(.eTag, tag)
        if let lastModified {
            headers.add(.lastModified, HTTPDate.string(from: lastModified))
        }
        response = Response(status: 200, headers: headers, body: body)
        self.lastModified = lastModified
    }

    /// A 200 response whose strong `ETag`, `tag`, is among `headers` already: an image's id,
    /// since its bytes never change under it (hashing them again would say nothing new).
    init(headers: HTTPFields, body: [UInt8], tag: String) {
        self.init(response: Response(status: 200, headers: headers, body: body), tag: tag, lastModified: nil)
    }

    private init(response: Response, tag: String, lastModified: Date?) {
        self.response = response
        self.tag = tag
        self.lastModified = lastModified
    }

    /// The same representation for keeping: its body in a buffer of exactly its size (an
    /// encoder's buffer grows by doubling and can be up to twice as large; the response cache's
    /// real size had been 2.5 × its count), marked as kept so that the transport may prepare
    /// it once for all the requests it answers (`KeptBody`).
    func kept() -> Representation {
        var body: [UInt8] = []
        body.reserveCapacity(response.body.count)
        body.append(contentsOf: response.body)
        var compact = response
        compact.body = body
        return Representation(response: compact.keepingBody(), tag: tag, lastModified: lastModified)
    }

    /// The same representation with its answers labelled with the route that made it, so that
    /// an answer served again from the response cache, before any routing, still names its route.
    func labelled(route: String?) -> Representation {
        var labelled = response
        labelled.route = route
        return Representation(response: labelled, tag: tag, lastModified: lastModified)
    }

    /// The response, or 304 with the same headers and no body when the client's copy is current.
    func answer(to request: Request) -> Response {
        guard Conditions.notModified(request, tag: tag, lastModified: lastModified) else {
            return response
        }
        var headers = response.headers
        headers[.contentType] = nil
        var notModified = Response(status: 304, headers: headers)
        notModified.route = response.route
        return notModified
    }

    /// Bytes held, for the cache's budget: the body and the header text.
    var size: Int {
        response.body.count + response.headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
    }
}

/// `If-None-Match` and `If-Modified-Since` on a GET (RFC 9110 §13.2.2: the date only counts
/// when there is no tag list).
enum Conditions {
    static func notModified(_ request: Request, tag: String, lastModified: Date?) -> Bool {
        if let list = request.headers[.ifNoneMatch] {
            return EntityTag.list(list, contains: tag, weak: true)
        }
        if let lastModified, let text = request.headers[.ifModifiedSince], let since = HTTPDate.date(from: text) {
            return lastModified <= since
        }
        return false
    }
}
