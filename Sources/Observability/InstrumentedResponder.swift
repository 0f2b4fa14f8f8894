import HTTPCore
import HTTPTypes

/// Wraps the application for metrics and the access log: times each answer, counts it by its
/// route (`Response.route`, set by the router), logs it, and sends its request id as
/// `X-Request-Id`. With neither on, `serve` does not wrap the application at all.
public struct InstrumentedResponder: HTTPResponder {
    let wrapped: any HTTPResponder
    let metrics: RequestMetrics?
    let accessLog: AccessLog?
    let ids = RequestIDs()

    public init(wrapping wrapped: any HTTPResponder, metrics: RequestMetrics?, accessLog: AccessLog?) {
        self.wrapped = wrapped
        self.metrics = metrics
        self.accessLog = accessLog
    }

    public func respond(to request: Request) -> Response {
        let start = ContinuousClock.now
        return finish(wrapped.respond(to: request), for: request, since: start)
    }

    public func respond(to error: HTTPRequestError, request: Request) -> Response {
        let start = ContinuousClock.now
        return finish(wrapped.respond(to: error, request: request), for: request, since: start)
    }

    public func mayBlock(_ request: Request) -> Bool {
        wrapped.mayBlock(request)
    }

    public func mayTakeLong(_ request: Request) -> Bool {
        wrapped.mayTakeLong(request)
    }

    private func finish(_ response: Response, for request: Request, since start: ContinuousClock.Instant) -> Response {
        let elapsed = ContinuousClock.now - start
        metrics?.record(method: request.method, route: response.route, status: response.status.code, duration: elapsed)
        guard let accessLog else { return response }
        var response = response
        let id = ids.next()
        response.requestID = id
        accessLog.record(request: request, response: response, id: id, duration: elapsed)
        return response
    }
}
