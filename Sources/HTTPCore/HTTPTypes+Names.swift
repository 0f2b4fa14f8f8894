import HTTPTypes

// The currency types of apple/swift-http-types, under names that do not clash with this
// module's `HTTPRequest` and `HTTPResponse` (a whole request, body included): modules that
// import HTTPCore use these and need not import HTTPTypes themselves.

/// A request method (`.get`, `.post`; any other token is kept, for a 405 or 501).
public typealias HTTPMethod = HTTPTypes.HTTPRequest.Method
/// A response status: a code and its reason phrase; an integer literal makes one.
public typealias HTTPStatus = HTTPTypes.HTTPResponse.Status
/// Header fields in the order received; names compare case-insensitively, and a repeated
/// field is kept, so that duplicates (a second `Content-Length`) can be refused.
public typealias HTTPHeaders = HTTPTypes.HTTPFields
public typealias HTTPHeaderName = HTTPTypes.HTTPField.Name

extension HTTPTypes.HTTPFields {
    /// The value of the field named `name`, repeated values joined with commas; nil when absent
    /// or when `name` is not a valid field name. For names the API does not define a constant for.
    public subscript(_ name: String) -> String? {
        HTTPTypes.HTTPField.Name(name).flatMap { self[$0] }
    }

    /// Adds a field after the others of the same name.
    public mutating func add(_ name: HTTPHeaderName, _ value: String) {
        append(HTTPTypes.HTTPField(name: name, value: value))
    }
}
