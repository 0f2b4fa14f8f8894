import Foundation
import HTTPTypes

// MARK: - Named tokens

/// `POST /api/tokens`: 201 with the new token, shown this once. Needs the `write` scope.
public struct CreateToken: APIEndpoint {
    public typealias Response = CreatedToken
    public static let method = HTTPRequest.Method.post
    public static let path: PathTemplate = "/api/tokens"
    public static let access = Access.token
    public static let successStatus = 201

    public var body: NewToken?

    public init(_ newToken: NewToken) { body = newToken }
    public init(_ request: EndpointRequest<NewToken>) throws(ParameterError) { body = request.body }
}

/// `GET /api/tokens`: the caller's named tokens, never the tokens themselves. Needs the
/// `write` scope: which apps hold a key is the account's business, not a reader's.
public struct ListTokens: APIEndpoint {
    public typealias Response = TokenList
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/tokens"
    public static let access = Access.token
    public static let requiredScope = TokenScope.write

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

/// `DELETE /api/tokens/{token_id}`: 204; the token fails from then on, on every server.
public struct RevokeToken: APIEndpoint {
    public typealias Response = NoContent
    public static let method = HTTPRequest.Method.delete
    public static let path: PathTemplate = "/api/tokens/{token_id}"
    public static let access = Access.token
    public static let successStatus = 204

    public var tokenID: Int64

    public init(tokenID: Int64) { self.tokenID = tokenID }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { tokenID = try request.id("token_id") }
    public var pathParameters: [String: String] { ["token_id": String(tokenID)] }
}
