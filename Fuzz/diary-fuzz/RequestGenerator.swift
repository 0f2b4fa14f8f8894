import HTTPCore
import HTTPTypes

/// Turns fuzzer bytes into a request that is mostly almost right: known paths with odd ids,
/// real and broken tokens, JSON with wrong types and hostile strings, and some pure noise.
struct RequestGenerator {
    /// Tokens the store knows, so that writes and ownership checks are reached.
    let tokens: [String]

    /// The API's routes, writes of entries more often than the rest.
    static let endpoints = [
        ("GET", "/api/entries"), ("GET", "/api/entries/{id}"), ("POST", "/api/entries"), ("POST", "/api/entries"),
        ("POST", "/api/entries"), ("PUT", "/api/entries/{id}"), ("PATCH", "/api/entries/{id}"),
        ("PATCH", "/api/entries/{id}"), ("DELETE", "/api/entries/{id}"), ("GET", "/api/diaries"),
        ("GET", "/api/diaries/{id}"), ("POST", "/api/diaries"), ("GET", "/api/diaries/{id}/entries"), ("GET", "/api/me"),
        ("GET", "/api/health"), ("OPTIONS", "/api/entries"), ("GET", "/api/tags"), ("GET", "/api/export"),
        ("POST", "/api/import"),
        // Images: uploads of hostile bytes (`imageBody`), their lists, and the files.
        ("POST", "/api/media"), ("POST", "/api/media"), ("GET", "/api/media"), ("GET", "/api/media/{media}"),
        ("DELETE", "/api/media/{media}"), ("GET", "/media/{media}"), ("HEAD", "/media/{media}"),
        // The reading pages and feeds.
        ("GET", "/"), ("GET", "/entries/{id}"), ("GET", "/diaries/{id}"), ("GET", "/search"), ("GET", "/tags/{id}"),
        ("GET", "/feed.atom"), ("GET", "/diaries/{id}/feed.atom"), ("HEAD", "/style.css"),
    ]
    static let methods = ["GET", "GET", "GET", "POST", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "get", ""]
    /// The API's paths, the entry paths (where the writes are) thrice, the pages, and some near misses.
    static let paths = [
        "/api/entries", "/api/entries/{id}", "/api/diaries", "/api/diaries/{id}", "/api/diaries/{id}/entries",
        "/api/me", "/api/health", "/api/openapi.json", "/api/entries", "/api/entries/{id}", "/api/entries",
        "/api/entries/{id}", "/", "/api", "/api/entries/{id}/{id}", "//api//entries/{id}", "/API/ENTRIES",
        "/api/entries/", "/api/diaries/{id}/entries/{id}",
        "/entries/{id}", "/diaries/{id}", "/diaries/{id}/feed.atom", "/tags/{id}", "/search", "/feed.atom", "/style.css",
        "/entries/{id}/", "/diaries//feed.atom",
    ]
    static let ids = [
        "1", "2", "3", "0", "-1", "99999999999999999999", "9223372036854775807", "9223372036854775808", "1.5", "1e3",
        "%00", "..", "%2e%2e", "%2F", "%ff", "%", "%zz", "01", "+1", "0x10", " ", "1%20OR%201=1", "1'--",
    ]
    /// Image ids: well formed (never given out), nearly so, and not at all.
    static let mediaIDs = [
        "0123456789abcdef0123456789abcdef", "0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcde",
        "0123456789abcdef0123456789abcdef0", "..%2f..%2fetc%2fpasswd", "", "%00",
    ]
    static let queryNames = [
        "page", "per_page", "page", "per_page", "q", "q", "tag", "since", "until", "order", "cursor", "format", "%00", "page%5B%5D",
    ]
    static let queryValues = [
        "1", "2", "0", "-1", "100", "101", "20", "abc", "", "99999999999999999999", "9223372036854775807", "1.5", "1e3",
        "%00", "%ff", "1;DROP%20TABLE%20entries", "'%20OR%201=1--", "+1", " 1", "%22", "ali*", "NEAR(a%20b)", "ent",
        "2026-11-01", "2026-11-22T04:30:00Z", "2026-13-01", "newest", "relevance", "json", "ndjson", "AAAA",
    ]
    static let contentTypes = [
        "application/json", "application/json; charset=utf-8", "application/json; charset=latin1", "text/plain",
        "text/markdown", "text/plain; charset=utf-8", "multipart/form-data; boundary=x", "", "APPLICATION/JSON",
        "application/json;charset=\"UTF-8\"", "application/x-ndjson",
        "image/jpeg", "image/png", "image/gif", "image/svg+xml", "image/", "multipart/form-data; boundary=\"\"",
    ]
    static let strings = [
        "Title", "", " ", "\\n", "a\\u0000b", "\\u0000", "'; DROP TABLE entries; --", "\\\"", "\\ud800", "\\udc00\\ud800",
        String(repeating: "x", count: 201), String(repeating: "\\u00e9", count: 200), "😀", "\u{202E}rtl", "\\t\\r",
        "Robert'); DROP TABLE users;--",
    ]
    static let numbers = [
        "1", "2", "0", "-1", "1.5", "1e3", "1e999", "-0", "99999999999999999999999999", "9223372036854775807",
        "9223372036854775808", "null", "true", "\"1\"", "[]", "{}",
    ]

    func request(from input: inout FuzzInput) -> Request {
        var (method, path) = input.pick(Self.endpoints)
        if input.chance(30) {
            method = input.chance(95) ? input.pick(Self.methods) : input.text(upTo: 10)
            path = input.chance(90) ? input.pick(Self.paths) : "/" + input.text(upTo: 40)
        }
        while let range = path.range(of: "{media}") {
            path.replaceSubrange(range, with: input.chance(70) ? input.pick(Self.mediaIDs) : input.text(upTo: 34))
        }
        while let range = path.range(of: "{id}") {
            let id = input.chance(90) ? input.mostly(String(1 + input.below(8)), 60, else: Self.ids) : input.text(upTo: 12)
            path.replaceSubrange(range, with: id)
        }
        // A method that is not a token never reaches the router: the transport refuses it.
        let target = query(&input).map { path + "?" + $0 } ?? path
        return Request(method: HTTPRequest.Method(method) ?? HTTPRequest.Method("BREW")!, target: target, headers: headers(&input), body: body(&input))
    }

    private func query(_ input: inout FuzzInput) -> String? {
        guard input.chance(40) else { return nil }
        if input.chance(15) { return input.text(upTo: 40) }
        return (0...input.below(4)).map { _ in
            let name = input.chance(90) ? input.pick(Self.queryNames) : input.text(upTo: 8)
            let value = input.chance(85) ? input.pick(Self.queryValues) : input.text(upTo: 12)
            return input.chance(10) ? name : "\(name)=\(value)"
        }.joined(separator: "&")
    }

    private func headers(_ input: inout FuzzInput) -> HTTPFields {
        var headers = HTTPFields()
        let token = input.pick(tokens)
        let authorizations = [
            "Bearer \(token)", "Bearer \(token)", "bearer \(token)", "Bearer  \(token) ", "Bearer \(token)x",
            "Bearer \(token) \(token)", "Bearer garbage", "Bearer", "Bearer ", "Basic YWxpY2U6eA==", "",
        ]
        let candidates: [(name: String, values: [String])] = [
            ("Authorization", authorizations),
            ("Content-Type", Self.contentTypes),
            ("Content-Type", ["application/json"]),
            ("If-Match", ["*", "\"abc\"", "W/\"abc\"", "\"\"", ","]),
            ("If-None-Match", ["*", "\"abc\"", "W/\"abc\"", ", ,"]),
            ("If-Modified-Since", ["Sun, 22 Nov 2026 04:30:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "garbage", ""]),
            ("Idempotency-Key", ["k1", "k2", String(repeating: "k", count: 256), "é", " "]),
            ("Origin", ["https://example.com", "null", "https://evil.example"]),
            ("Access-Control-Request-Method", ["POST", "DELETE", "BREW"]),
        ]
        for candidate in candidates where input.chance(["Authorization", "Content-Type"].contains(candidate.name) ? 60 : 20) {
            let value = input.chance(90) ? input.mostly(candidate.values[0], 60, else: candidate.values) : input.text(upTo: 30)
            headers.add(HTTPField.Name(candidate.name)!, value)
        }
        for _ in 0..<8 where input.chance(10) {
            // A name that is not a token never reaches the router: the transport refuses it.
            let name = input.chance(50) ? input.pick(candidates).name : input.text(upTo: 12)
            let value = input.text(upTo: 30)
            if let name = HTTPField.Name(name) { headers.add(name, value) }
        }
        return headers
    }

    private func body(_ input: inout FuzzInput) -> [UInt8] {
        switch input.below(13) {
        case 0, 1: return []
        case 12: return imageBody(&input)
        case 2: return input.bytes(upTo: 300)
        case 3: return Array(input.text(upTo: 200).utf8)
        case 4:
            let depth = input.chance(20) ? 10_000 : input.below(600)
            let open = input.chance(50) ? "[" : "{\"a\":"
            let close = open == "[" ? "]" : "}"
            return Array((String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)).utf8)
        default:
            return Array(jsonObject(&input).utf8)
        }
    }

    /// An image's signature followed by anything: a header that claims a size, a truncated or
    /// corrupt stream, a polyglot with HTML after it, or a form whose `file` is one of these.
    private func imageBody(_ input: inout FuzzInput) -> [UInt8] {
        let signatures: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF, 0xE0], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Array("GIF89a".utf8), Array("RIFF\0\0\0\0WEBPVP8 ".utf8),
            Array("<svg xmlns=\"http://www.w3.org/2000/svg\">".utf8), Array("%PDF-1.4\n".utf8),
        ]
        var bytes = input.pick(signatures) + input.bytes(upTo: 400)
        if input.chance(20) { bytes += Array("<html><script>alert(1)</script>".utf8) }
        if input.chance(20) {
            bytes = Array("--x\r\nContent-Disposition: form-data; name=\"file\"\r\nContent-Type: image/png\r\n\r\n".utf8) + bytes + Array("\r\n--x--\r\n".utf8)
        }
        return bytes
    }

    /// An object with the API's field names, values of right and wrong types, fields left out,
    /// repeated or unknown, and now and then cut short.
    private func jsonObject(_ input: inout FuzzInput) -> String {
        var fields: [String] = []
        for name in ["title", "body", "diary_id", "title", "x"] {
            guard input.chance(["title", "body"].contains(name) && fields.count < 2 ? 90 : 15) else { continue }
            let value: String
            switch input.below(6) {
            case 0: value = input.pick(Self.numbers)
            case 1: value = "\"" + input.text(upTo: 20) + "\""
            case 2: value = "\"" + input.pick(Self.strings) + "\""
            default: value = name == "diary_id" ? String(1 + input.below(4)) : "\"\(name) \(input.below(1000))\""
            }
            fields.append("\"\(name)\":\(value)")
        }
        let object = "{" + fields.joined(separator: ",") + "}"
        return input.chance(10) ? String(object.prefix(input.below(object.count + 1))) : object
    }
}
