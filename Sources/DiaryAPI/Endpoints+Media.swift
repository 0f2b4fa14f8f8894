import Foundation
import HTTPTypes

// MARK: - Media

/// A body sent as it is, with its own `Content-Type`, instead of as JSON: an image upload.
public protocol RawBody: Sendable {
    /// The media types taken, as `type/*` or exact (compared lower-cased, without parameters).
    static var acceptedMediaTypes: [String] { get }
    init(rawBytes: [UInt8], contentType: String)
    /// What a client sends: the bytes and their `Content-Type`.
    var rawBytes: [UInt8] { get }
    var rawContentType: String { get }
}

/// The bytes of an uploaded image as sent, with the `Content-Type` the client gave. The server
/// decides the format from the bytes alone (`VipsImages`); the header only says "an image".
public struct ImageUpload: RawBody, Codable, ValidatableBody, Equatable {
    /// An image as the body, or a form whose field `file` is the image.
    public static let acceptedMediaTypes = ["image/*", "multipart/form-data"]

    public var bytes: [UInt8]
    public var contentType: String

    public init(rawBytes: [UInt8], contentType: String) {
        bytes = rawBytes
        self.contentType = contentType
    }

    /// An upload of a file: its type from its name's extension, `image/jpeg` when that says
    /// nothing (the server judges the bytes anyway; the header only has to say "an image").
    public init(fileBytes: [UInt8], fileName: String) {
        let types = ["jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp", "gif": "image/gif",
                     "heic": "image/heic", "heif": "image/heif", "avif": "image/avif"]
        let ext = fileName.split(separator: ".").last.map { $0.lowercased() } ?? ""
        self.init(rawBytes: fileBytes, contentType: types[ext] ?? "image/jpeg")
    }

    public var rawBytes: [UInt8] { bytes }
    public var rawContentType: String { contentType }

    /// Every check needs the image decoded: the server makes them, not the contract.
    public func validated() -> Result<ImageUpload, ValidationFailure> { .success(self) }
}

/// `POST /api/media`: the image as the body (`Content-Type: image/…`). 201 with `Location`
/// and the kept image: upright, at most 2,048 px, without metadata, re-encoded.
public struct UploadMedia: APIEndpoint {
    public typealias Response = MediaItem
    public static let method = HTTPRequest.Method.post
    public static let path: PathTemplate = "/api/media"
    public static let access = Access.token
    public static let successStatus = 201
    /// The largest upload taken, refused from its `Content-Length` before the body is read.
    public static let maximumBytes = 20_000_000

    public var body: ImageUpload?

    public init(_ upload: ImageUpload) { body = upload }
    public init(_ request: EndpointRequest<ImageUpload>) throws(ParameterError) { body = request.body }
}

/// `GET /api/media`: the caller's images, newest first, each with the entries linking to it.
public struct ListMedia: PagedEndpoint {
    public typealias Response = MediaPage
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/media"
    public static let access = Access.token

    public var page: PageRequest

    public init(page: PageRequest = PageRequest()) { self.page = page }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { page = try request.pageRequest() }
    public var query: [URLQueryItem] { page.queryItems }
}

/// `GET /api/media/{media_id}`: an image's description (size, type) to whoever may see the
/// image; 404, as for an id never given out, to anyone else.
public struct GetMedia: APIEndpoint {
    public typealias Response = MediaItem
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/media/{media_id}"

    public var mediaID: MediaID

    public init(mediaID: MediaID) { self.mediaID = mediaID }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { mediaID = try request.mediaID() }
    public var pathParameters: [String: String] { ["media_id": mediaID.text] }
}

/// `DELETE /api/media/{media_id}`: 204; 404 for an id that is not one of the caller's images.
public struct DeleteMedia: APIEndpoint {
    public typealias Response = NoContent
    public static let method = HTTPRequest.Method.delete
    public static let path: PathTemplate = "/api/media/{media_id}"
    public static let access = Access.token
    public static let successStatus = 204

    public var mediaID: MediaID

    public init(mediaID: MediaID) { self.mediaID = mediaID }

    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { mediaID = try request.mediaID() }
    public var pathParameters: [String: String] { ["media_id": mediaID.text] }
}

extension EndpointRequest {
    /// The path parameter `media_id`, which must be an id as `MediaID` makes them.
    func mediaID() throws(ParameterError) -> MediaID {
        let text = pathParameters["media_id"] ?? ""
        guard let id = MediaID(text) else {
            throw ParameterError(name: "media_id", message: "must be 32 lowercase hex digits, not '\(text.prefix(40))'")
        }
        return id
    }
}
