/// An error body as RFC 9457 `application/problem+json` describes it.
public struct Problem: Codable, Sendable, Equatable, Error {
    /// A URI reference naming the kind of problem; `about:blank` when the status says it all.
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    /// For validation problems: which fields were wrong, and how.
    public var errors: [FieldError]?

    public init(type: String = "about:blank", title: String, status: Int, detail: String, errors: [FieldError]? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.errors = errors
    }

    public static let mediaType = "application/problem+json"
}

/// One field of a request that was not accepted, and why.
public struct FieldError: Codable, Sendable, Equatable, Error {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}
