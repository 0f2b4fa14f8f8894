import DiaryAPI
import MultipartKit

/// The parts of a `multipart/form-data` body, parsed by multipart-kit's `MultipartParser`
/// (vapor/multipart-kit 4.7.1): the file of an upload (`curl -F file=@photo.jpg`, the part
/// named `file`), or every field and file of a Micropub post.
enum MultipartUpload {
    static let fieldName = "file"

    /// The bytes and the `Content-Type` of the part named `file`, from `body` sent with
    /// `contentType` (which carries the boundary); a 400 naming what is missing otherwise.
    static func file(in body: [UInt8], contentType: String) throws(Problem) -> (bytes: [UInt8], contentType: String) {
        let parts = try Self.parts(in: body, contentType: contentType)
        guard let part = parts.first(where: { $0.name == fieldName }) else {
            throw .badRequest(
                "The multipart/form-data body has no field named \(fieldName): send the image as -F \(fieldName)=@photo.jpg.",
                errors: [FieldError(field: fieldName, message: "is missing")]
            )
        }
        return (part.bytes, part.contentType ?? "application/octet-stream")
    }

    /// One part of a form: its field name, its `Content-Type` (a file's) and its bytes.
    struct Part {
        var name: String?
        var contentType: String?
        var bytes: [UInt8]
    }

    /// Every part of `body`, in order (Micropub's fields and files).
    static func parts(in body: [UInt8], contentType: String) throws(Problem) -> [Part] {
        guard let boundary = boundary(of: contentType) else {
            throw .badRequest("A multipart/form-data body needs its boundary in the Content-Type header.")
        }
        var parts: [MultipartPart] = []
        var headers = HTTPHeaders()
        var collected = ByteBuffer()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers.add(name: name, value: value) }
        parser.onBody = { chunk in collected.writeBuffer(&chunk) }
        parser.onPartComplete = {
            parts.append(MultipartPart(headers: headers, body: collected))
            headers = HTTPHeaders()
            collected = ByteBuffer()
        }
        do {
            try parser.execute(body)
        } catch {
            throw .badRequest("The multipart/form-data body cannot be read: \(String(describing: error).prefix(120)).")
        }
        return parts.map { Part(name: $0.name, contentType: $0.headers.first(name: "Content-Type"), bytes: Array($0.body.readableBytesView)) }
    }

    /// The `boundary` parameter of a Content-Type, unquoted.
    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
