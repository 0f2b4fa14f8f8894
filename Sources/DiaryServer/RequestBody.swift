import DiaryAPI
import Foundation
import HTTPCore

/// Reads a request body by its Content-Type: JSON always, plain text where the body type
/// allows it (`PlainTextBody`). Anything else is 415 with the header to send instead.
enum RequestBody {
    static func decode<Body: Decodable>(_ type: Body.Type, from request: Request) throws(Problem) -> Body {
        if let rawType = Body.self as? any RawBody.Type {
            return try raw(rawType, from: request) as! Body  // Made as `rawType`, which is `Body`.
        }
        let textType = Body.self as? any PlainTextBody.Type
        let lineDelimited = Body.self is any LineDelimitedBody.Type
        let accepted = [MediaTypes.json] + (textType == nil ? [] : MediaTypes.text) + (lineDelimited ? [MediaTypes.ndjson] : [])
        let hint = "Send the body as JSON with the header -H 'Content-Type: application/json'."
        guard let contentType = request.headers[.contentType] else {
            throw .unsupportedMediaType("The request has no Content-Type. \(hint)")
        }
        let mediaType = request.mediaType
        guard accepted.contains(mediaType) else {
            throw .unsupportedMediaType("The body is \(contentType.prefix(100)), which this endpoint does not take (\(accepted.joined(separator: ", "))). \(hint)")
        }
        let parameters = contentType.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for parameter in parameters where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard charset == "utf-8" || charset == "utf8" else {
                throw .unsupportedMediaType("The body must be UTF-8, not \(charset.prefix(40)). \(hint)")
            }
        }
        if mediaType == MediaTypes.ndjson {
            // One JSON value a line: read as the array of those values.
            let lines = request.body.split(separator: UInt8(ascii: "\n")).filter { line in
                line.contains { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\t") }
            }
            let array = [UInt8(ascii: "[")] + Array(lines.joined(separator: [UInt8(ascii: ",")])) + [UInt8(ascii: "]")]
            return try JSONCoding.decodeBody(Body.self, from: array)
        }
        if mediaType != MediaTypes.json, let textType {
            guard let text = String(validating: request.body, as: UTF8.self) else {
                throw .badRequest("The request body is not valid UTF-8.")
            }
            if let body = textType.init(plainText: text) as? Body { return body }
        }
        return try JSONCoding.decodeBody(Body.self, from: request.body)
    }

    /// A body taken as sent (an image): its `Content-Type` must be one of the type's.
    private static func raw(_ type: any RawBody.Type, from request: Request) throws(Problem) -> any RawBody {
        let accepted = type.acceptedMediaTypes
        let hint = "Send the file as the body with its type (-H 'Content-Type: image/jpeg' --data-binary @photo.jpg) or as a form (-F file=@photo.jpg)."
        let contentType = request.headers[.contentType] ?? ""
        let mediaType = request.mediaType
        let matches = accepted.contains { pattern in
            pattern.hasSuffix("/*") ? mediaType.hasPrefix(pattern.dropLast()) && mediaType.count > pattern.count - 1 : mediaType == pattern
        }
        guard matches else {
            let sent = contentType.isEmpty ? "The request has no Content-Type" : "The body is \(contentType.prefix(100))"
            throw .unsupportedMediaType("\(sent), which this endpoint does not take (\(accepted.joined(separator: ", "))). \(hint)")
        }
        if mediaType == "multipart/form-data" {
            let file = try MultipartUpload.file(in: request.body, contentType: contentType)
            return type.init(rawBytes: file.bytes, contentType: file.contentType)
        }
        return type.init(rawBytes: request.body, contentType: mediaType)
    }
}
