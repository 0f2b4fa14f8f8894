import Dispatch
import Glibc
import HTTPCore
import HTTPTypes
import Synchronization
@testable import MicroHTTPDServer

/// Echoes what the transport delivered, so the tests can check it byte for byte.
struct EchoResponder: HTTPResponder {
    let probe: Probe

    /// What the tests watch from outside the worker threads, and the gate `/slow` waits at.
    final class Probe: Sendable {
        let calls = Atomic<Int>(0)
        /// Signalled once a `/slow` request reached the responder.
        private let slowStarted = DispatchSemaphore(value: 0)
        /// What a `/slow` request waits for before it answers: the test's `releaseSlow()`.
        private let slowRelease = DispatchSemaphore(value: 0)
        /// Set by a `/slow` request just before it returns its answer.
        let slowFinished = Atomic<Bool>(false)

        /// Waits until a `/slow` request is in the responder (held there until `releaseSlow()`);
        /// false if none arrived within `seconds`.
        func waitForSlowRequest(seconds: Double = 30) -> Bool {
            slowStarted.wait(timeout: .now() + seconds) == .success
        }

        /// Lets the `/slow` request answer. Call it in a `defer` too, so that a test that
        /// failed early does not leave the request (and the server's shutdown) waiting.
        func releaseSlow() {
            slowRelease.signal()
        }

        /// The responder's side: a `/slow` request is held until the test releases it. The limit
        /// only keeps a test that forgot to release from hanging the suite; its answer then says so.
        fileprivate func holdSlowRequest() -> Bool {
            slowStarted.signal()
            return slowRelease.wait(timeout: .now() + 60) == .success
        }
    }

    func respond(to request: Request) -> Response {
        probe.calls.add(1, ordering: .relaxed)
        var headers = HTTPFields(fields: [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("X-Method", request.method.rawValue),
            ("X-Path", String(request.path)),
            ("X-Query", request.rawQuery.map(String.init) ?? "<none>"),
            ("X-Body-Length", String(request.body.count)),
            ("X-Client-Address", request.clientAddress ?? "<none>"),
        ])
        switch request.path {
        case "/slow":
            // In flight for exactly as long as the test wants, however loaded the machine is.
            let released = probe.holdSlowRequest()
            probe.slowFinished.store(true, ordering: .releasing)
            return Response(status: 200, headers: headers, body: Array((released ? "slow done" : "slow never released").utf8))
        case "/wrong-length":
            // The transport must frame the body itself, whatever the responder claims.
            headers.add(.contentLength, "999")
            return Response(status: 200, headers: headers, body: Array("abc".utf8))
        case "/empty":
            return Response(status: 204, headers: headers)
        case "/broken-stream":
            // A first chunk, then a failure: a store read that failed half-way through an export.
            struct StreamBroke: Error {}
            let sent = Atomic<Bool>(false)
            return Response(status: 200, headers: headers, stream: HTTPBodyStream {
                guard sent.exchange(true, ordering: .relaxed) else { return Array("first\n".utf8) }
                throw StreamBroke()
            })
        default:
            let body = request.body.isEmpty ? Array("\(request.method) \(request.path) \(request.rawQuery ?? "<none>")".utf8) : request.body
            return Response(status: 200, headers: headers, body: body)
        }
    }

    /// A request whose query is `long` goes to the threads for long requests.
    func mayTakeLong(_ request: Request) -> Bool {
        request.rawQuery == "long"
    }

    /// `/large-upload` may send three times the transport's limit of the tests (1000), as an
    /// image upload may send more than a JSON body.
    func maxBodySize(for request: Request) -> Int? {
        request.path == "/large-upload" ? 3000 : nil
    }

    func respond(to error: HTTPRequestError, request: Request) -> Response {
        Response(
            status: error.status,
            headers: HTTPFields(fields: [("X-Refused", error.reason), ("X-Path", String(request.path))]),
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

/// Waits up to `seconds` for `condition`, polling; for state that worker threads change. The
/// limit only ends a wait for something that does not happen: a condition that holds returns at
/// once, so it is generous enough for a loaded machine.
func eventually(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// True when `condition` stayed false for all of `seconds`: a window in which a broken server
/// would show itself. A loaded machine can only make it miss a bug, never fail a correct server.
func never(within seconds: Double, _ condition: () -> Bool) -> Bool {
    !eventually(seconds: seconds, condition)
}

/// A plain thread, for work that must run while the test blocks: the cooperative pool is
/// busy with the other (blocking) tests and could start a `Task` too late.
final class TestThread: Sendable {
    private let thread: pthread_t
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let finished = self.finished
        let box = Unmanaged.passRetained(Box {
            body()
            finished.signal()
        }).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(created == 0, "pthread_create failed")
        self.thread = thread
    }

    /// Joins the thread if it finishes within `seconds`; false (and the thread left running)
    /// if not, so that a test fails instead of hanging the suite.
    func join(within seconds: Double) -> Bool {
        guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        pthread_join(thread, nil)
        return true
    }
}

extension HTTPFields {
    /// Fields from names written as strings, in order (a test's names are all valid).
    init(fields: [(String, String)]) {
        self.init()
        for (name, value) in fields { add(HTTPField.Name(name)!, value) }
    }
}
