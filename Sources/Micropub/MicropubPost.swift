import DiaryAPI
import DiaryPages
import Foundation

/// A photo of a post as sent: a URL (with its description) or a file to upload.
public enum MicropubPhoto: Sendable, Equatable {
    case url(String, alt: String?)
    case file(bytes: [UInt8], contentType: String)
}

/// A create request's properties as a diary entry's fields. Every rule of an entry (title,
/// tags) is DiaryAPI's, applied by the server as for `POST /api/entries`.
public struct MicropubPost: Sendable, Equatable {
    /// `name`; nil for a note, whose title is made from its content (`title(photos:)`).
    public var name: String?
    /// `content` as Markdown: plain text is Markdown already, `{"html": …}` is converted.
    public var content: String
    public var tags: [String]
    public var published: Date?
    public var draft: Bool
    public var visibility: Visibility?
    public var photos: [MicropubPhoto]
    /// `mp-destination`: the `uid` of one of the caller's diaries (`q=config` lists them).
    public var destination: String?

    /// The properties this server reads; anything else (`location`, a nested check-in,
    /// `syndication`) is accepted and not kept, as the specification allows.
    public init(_ properties: MicropubProperties) throws(MicropubError) {
        let name = try Self.single(properties, "name")?.text
        self.name = name?.isEmpty == false ? name : nil
        content = try Self.single(properties, "content").map(Self.markdown) ?? ""
        tags = (properties["category"] ?? []).compactMap(\.text)
        published = try Self.single(properties, "published").map(Self.published)
        draft = try Self.draft(Self.single(properties, "post-status"))
        visibility = try Self.visibility(Self.single(properties, "visibility"))
        photos = try (properties["photo"] ?? []).map(Self.photo)
        destination = try Self.single(properties, "mp-destination")?.text
    }

    /// The body kept: the content, then each photo as a Markdown image on its own line.
    /// - Parameter photoURLs: the photos' URLs and descriptions, uploads already kept.
    public func body(photoURLs: [(url: String, alt: String?)]) -> String {
        var lines = content.isEmpty ? [] : [content]
        lines += photoURLs.map { MarkdownImageSyntax.image(url: $0.url, alt: $0.alt ?? "") }
        return lines.joined(separator: "\n\n")
    }

    /// `name`, or for a note the start of its first line of text, or "Photo" or "Note".
    public var title: String {
        if let name { return name }
        let text = content.split(whereSeparator: \.isNewline).lazy.map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        if let text { return SafeMarkdown.excerpt(text, limit: 80) }
        return photos.isEmpty ? "Note" : "Photo"
    }

    // MARK: Reading values

    static func single(_ properties: MicropubProperties, _ name: String) throws(MicropubError) -> MicropubValue? {
        guard let values = properties[name] else { return nil }
        guard values.count <= 1 else { throw .invalidRequest("\(name) takes one value, not \(values.count).") }
        return values.first
    }

    /// `content` as Markdown; HTML sanitised as pages sanitise it, then written as Markdown.
    static func markdown(_ value: MicropubValue) throws(MicropubError) -> String {
        switch value {
        case .text(let text): return text
        case .html(let html): return HTMLMarkdown.markdown(fromHTML: html)
        default: throw .invalidRequest("content must be text or {\"html\": …}.")
        }
    }

    /// `published` as a date: an RFC 3339 text, else 400.
    static func published(_ value: MicropubValue) throws(MicropubError) -> Date {
        guard let text = value.text, let date = RFC3339.date(from: text) else { throw notADate }
        return date
    }

    static let notADate = MicropubError.invalidRequest("published must be an RFC 3339 date such as 2026-11-25T09:30:00Z.")

    static func draft(_ value: MicropubValue?) throws(MicropubError) -> Bool {
        guard let value else { return false }
        switch value.text {
        case "published": return false
        case "draft": return true
        default: throw .invalidRequest("post-status must be published or draft.")
        }
    }

    static func visibility(_ value: MicropubValue?) throws(MicropubError) -> Visibility? {
        guard let value else { return nil }
        guard let text = value.text, let visibility = Visibility(rawValue: text) else {
            throw .invalidRequest("visibility must be \(Visibility.choices).")
        }
        return visibility
    }

    static func photo(_ value: MicropubValue) throws(MicropubError) -> MicropubPhoto {
        switch value {
        case .text(let url): return .url(url, alt: nil)
        case .described(let url, let alt): return .url(url, alt: alt)
        case .file(let bytes, let contentType): return .file(bytes: bytes, contentType: contentType)
        default: throw .invalidRequest("photo must be a URL, {\"value\": URL, \"alt\": …} or a file.")
        }
    }
}
