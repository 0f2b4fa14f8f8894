import HTTPTypes

/// Tests write methods as the request line does.
extension HTTPTypes.HTTPRequest.Method: @retroactive ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self.init(value)!
    }
}
