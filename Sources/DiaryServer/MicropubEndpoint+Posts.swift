import ByteEncodings
import DiaryAPI
import DiaryStore
import HTTPCore
import HTTPTypes
import Micropub

extension MicropubEndpoint {
    /// `POST /micropub`: create, update, delete, as JSON, form-encoded or multipart. The token
    /// is checked, then its scope, before anything in the body is acted on.
    func post(_ request: Request) -> Response {
        answer { () throws(MicropubError) in
            let body = try Self.read(request)
            let holder = try holder(request, bodyToken: body.accessToken)
            guard holder.scope.allows(.write) else { throw .insufficientScope }
            let parsed = if let json = body.json { try MicropubRequest.parse(json: json) } else { try MicropubRequest.parse(form: body.fields) }
            switch parsed {
            case .create(let properties): return try create(MicropubPost(properties), user: holder.user)
            case .update(let url, let update): return try self.update(url, update, user: holder.user)
            case .delete(let url):
                let entry = try ownEntry(at: url, user: holder.user)
                try run { () throws(StoreError) in try store.deleteEntry(id: entry.id, userID: holder.user.id, precondition: nil) }
                return Response(status: .noContent, headers: HTTPFields.standard(contentType: "text/plain", cacheable: false))
            case .undelete:
                throw .invalidRequest("Deleted posts are not kept on this server, so none can be undeleted.")
            }
        }
    }

    /// A body as read: JSON bytes, or form fields (files included) and the token among them.
    struct Body {
        var json: [UInt8]?
        var fields: [(name: String, value: MicropubValue)] = []
        var accessToken: String?
    }

    static func read(_ request: Request) throws(MicropubError) -> Body {
        let contentType = request.headers[.contentType] ?? ""
        var body = Body()
        switch request.mediaType {
        case "application/json": body.json = request.body
        case "application/x-www-form-urlencoded":
            guard let items = QueryItem.decode(form: Substring(decoding: request.body, as: UTF8.self)) else {
                throw .invalidRequest("The form has a broken percent-escape or is not UTF-8.")
            }
            body.fields = items.map { ($0.name, .text($0.value)) }
        case "multipart/form-data":
            let parts: [MultipartUpload.Part]
            do { parts = try MultipartUpload.parts(in: request.body, contentType: contentType) } catch { throw MicropubEndpoint.micropubError(error) }
            for part in parts {
                guard let name = part.name else { continue }
                if let type = part.contentType, !type.lowercased().hasPrefix("text/plain") {
                    body.fields.append((name, .file(bytes: part.bytes, contentType: type)))
                } else {
                    guard let text = String(validating: part.bytes, as: UTF8.self) else { throw .invalidRequest("The field \(name.prefix(40)) is not UTF-8.") }
                    body.fields.append((name, .text(text)))
                }
            }
        default:
            throw .invalidRequest("Send the post as application/json, application/x-www-form-urlencoded or multipart/form-data.")
        }
        body.accessToken = body.fields.last { $0.name == "access_token" }?.value.text
        return body
    }
}
