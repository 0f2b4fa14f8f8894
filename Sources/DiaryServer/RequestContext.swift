import DiaryAPI
import DiaryStore
import HTTPCore
import HTTPTypes

/// What a handler may know of the request beyond the endpoint value: who sent it, and the
/// header fields that change how the work is done (`If-Match`, `Idempotency-Key`).
public struct RequestContext: Sendable {
    /// The caller and their token's scope: always set for endpoints whose `access` is
    /// `.token`; for open ones, when the request sent a token.
    public let holder: TokenHolder?
    let request: Request

    /// The caller: always set for endpoints whose `access` is `.token`; for open ones, when
    /// the request sent a token.
    public var user: User? { holder?.user }

    /// Whose unlisted and private entries a read may show: the caller's own, if they sent a token.
    public var viewerID: Int64? { user?.id }

    /// The authenticated user; the router has already answered 401 when there is none.
    public func authenticatedUser() throws(Problem) -> User {
        guard let user else { throw .unauthorized("This request needs a token.") }
        return user
    }

    /// The `If-Match` condition as a check on the stored entry, or nil without the header.
    public var entryPrecondition: EntryPrecondition? {
        guard let list = request.headers[.ifMatch] else { return nil }
        return { entry in EntityTag.list(list, contains: EntityTag.of(JSONCoding.encode(entry)), weak: false) }
    }

    /// The `Idempotency-Key` with a fingerprint of `body` (and the path), or nil without the header.
    /// A key must be 1 to 255 visible ASCII characters.
    public func idempotencyKey(for body: some Encodable) throws(Problem) -> IdempotencyKey? {
        guard let key = request.headers[.idempotencyKey] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .badRequest(
                "The Idempotency-Key header must be 1 to 255 visible ASCII characters.",
                errors: [FieldError(field: HTTPField.Name.idempotencyKey.rawName, message: "must be 1 to 255 visible ASCII characters")]
            )
        }
        // The validated body re-encoded (sorted keys): the same request in other spacing is the same request.
        let fingerprint = EntityTag.of(Array(request.path.utf8) + [0] + JSONCoding.encode(body))
        return IdempotencyKey(key: key, fingerprint: fingerprint)
    }
}
