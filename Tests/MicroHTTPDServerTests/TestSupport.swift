import Glibc
import HTTPCore
import Synchronization
@testable import MicroHTTPDServer

/// Echoes what the transport delivered, so the tests can check it byte for byte.
struct EchoResponder: HTTPResponder {
    let probe: Probe

    /// What the tests watch from outside the worker threads.
    final class Probe: Sendable {
        let slowRequestStarted = Atomic<Bool>(false)
        let calls = Atomic<Int>(0)
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        probe.calls.add(1, ordering: .relaxed)
        var headers = HTTPHeaders(fields: [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("X-Method", request.method.rawValue),
            ("X-Path", request.path),
            ("X-Query", request.rawQuery ?? "<none>"),
            ("X-Body-Length", String(request.body.count)),
        ])
        switch request.path {
        case "/slow":
            probe.slowRequestStarted.store(true, ordering: .releasing)
            // Long enough that a loaded machine (tests run in parallel) still sees it in flight.
            usleep(2_000_000)
            return HTTPResponse(status: 200, headers: headers, body: Array("slow done".utf8))
        case "/wrong-length":
            // The transport must frame the body itself, whatever the responder claims.
            headers.add(.contentLength, "999")
            return HTTPResponse(status: 200, headers: headers, body: Array("abc".utf8))
        case "/empty":
            return HTTPResponse(status: 204, headers: headers)
        default:
            let body = request.body.isEmpty ? Array("\(request.method) \(request.path) \(request.rawQuery ?? "<none>")".utf8) : request.body
            return HTTPResponse(status: 200, headers: headers, body: body)
        }
    }

    func respond(to error: HTTPRequestError, request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(
            status: error.status,
            headers: HTTPHeaders(fields: [("X-Refused", error.reason), ("X-Path", request.path)]),
            body: Array("refused: \(error.reason)".utf8)
        )
    }
}

/// Runs `body` against a fresh server on a free port, shut down afterwards.
func withServer(
    maxBodySize: Int = 2_097_152,
    _ body: (HTTPServer, EchoResponder.Probe) throws -> Void
) throws {
    let probe = EchoResponder.Probe()
    let configuration = HTTPServerConfiguration(port: 0, threads: 2, maxBodySize: maxBodySize, connectionTimeout: 10)
    let server = HTTPServer(configuration: configuration, responder: EchoResponder(probe: probe))
    try server.start()
    defer { server.shutdown(gracePeriod: .seconds(2)) }
    try body(server, probe)
}

/// Waits up to `seconds` for `condition`, polling; for state that worker threads change.
func eventually(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// A plain thread, for work that must run while the test blocks: the cooperative pool is
/// busy with the other (blocking) tests and could start a `Task` too late.
final class TestThread: Sendable {
    private let thread: pthread_t

    init(_ body: @escaping @Sendable () -> Void) {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(created == 0, "pthread_create failed")
        self.thread = thread
    }

    func join() {
        pthread_join(thread, nil)
    }
}

extension HTTPHeaders {
    /// Fields from names written as strings, in order (a test's names are all valid).
    init(fields: [(String, String)]) {
        self.init()
        for (name, value) in fields { add(HTTPHeaderName(name)!, value) }
    }
}
