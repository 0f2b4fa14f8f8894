import Foundation

/// An error as the Micropub specification words it (§3.7.3): a status and a JSON body
/// `{"error": …, "error_description": …}`. Micropub clients read `error`, so the endpoint
/// answers this instead of the API's problem+json (docs/api.md says so).
public struct MicropubError: Error, Sendable, Equatable {
    /// `invalid_request`, `unauthorized`, `forbidden`, `insufficient_scope`, or for the
    /// server's own failures `server_error`.
    public var code: String
    public var description: String
    public var status: Int

    public init(code: String, description: String, status: Int) {
        self.code = code
        self.description = description
        self.status = status
    }

    /// 400: the request is missing something, names a post that is not the caller's, or is
    /// malformed.
    public static func invalidRequest(_ description: String) -> MicropubError {
        MicropubError(code: "invalid_request", description: description, status: 400)
    }

    /// 401: no token, or one nobody holds.
    public static func unauthorized(_ description: String) -> MicropubError {
        MicropubError(code: "unauthorized", description: description, status: 401)
    }

    /// 403: the post is someone else's.
    public static func forbidden(_ description: String) -> MicropubError {
        MicropubError(code: "forbidden", description: description, status: 403)
    }

    /// 403: a `read` token asked to write.
    public static let insufficientScope = MicropubError(
        code: "insufficient_scope", description: "This token may only read; posting needs a token with the write scope.", status: 403
    )

    /// The body: `{"error":"…","error_description":"…"}`.
    public var json: [UInt8] {
        MicropubJSON.encode(["error": .string(code), "error_description": .string(description)])
    }
}
