/// A complete HTTP response; the transport copies `body` out once when it sends it.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
