import ByteEncodings
import HTTPTypes

/// One decoded `name=value` pair of a query string.
public struct QueryItem: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension QueryItem {
    /// `name=value&…` decoded in order, `+` as a space, as query strings and
    /// `application/x-www-form-urlencoded` bodies send it; nil when an escape is broken or not UTF-8.
    public static func decode(form: Substring) -> [QueryItem]? {
        var items: [QueryItem] = []
        for pair in form.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusAsSpace: true),
                  let value = PercentEncoding.decode(parts.count > 1 ? parts[1] : "", plusAsSpace: true)
            else { return nil }
            items.append(QueryItem(name: name, value: value))
        }
        return items
    }
}

extension Request {
    /// The decoded query items in order, or nil when an escape is broken or not UTF-8.
    public func queryItems() -> [QueryItem]? {
        guard let rawQuery else { return [] }
        return QueryItem.decode(form: rawQuery[...])
    }

    /// The body's media type: `Content-Type` without its parameters, lower-cased
    /// (`Application/JSON; charset=utf-8` gives `application/json`); "" when there is none.
    public var mediaType: String {
        guard let contentType = headers[.contentType] else { return "" }
        var type = contentType.prefix { $0 != ";" }
        while let first = type.first, first == " " || first == "\t" { type.removeFirst() }
        while let last = type.last, last == " " || last == "\t" { type.removeLast() }
        return type.lowercased()
    }

    /// The decoded path segments (`/api/entries/42` gives `["api", "entries", "42"]`), or nil
    /// when an escape is broken, not UTF-8, or decodes to a `/` or a NUL.
    public func pathSegments() -> [String]? {
        var segments: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = PercentEncoding.decode(raw), !segment.contains("/"), !segment.contains("\0") else { return nil }
            segments.append(segment)
        }
        return segments
    }
}
