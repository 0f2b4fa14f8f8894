import CMicroHTTPD
import Glibc
import HTTPCore
import HTTPTypes
import Synchronization

/// What the callbacks share across worker threads, passed to libmicrohttpd as `cls`.
/// The server holds it strongly until `MHD_stop_daemon` returned, so callbacks borrow it unretained.
final class DaemonContext: Sendable {
    let responder: any HTTPResponder
    let maxBodySize: Int
    /// Requests begun (request line read) and not yet completed; shutdown waits for 0.
    let inFlight = Atomic<Int>(0)
    /// Set once shutdown began: answers then carry `Connection: close` so keep-alive clients leave.
    let draining = Atomic<Bool>(false)
    /// Where requests that may block are answered, their connections suspended meanwhile.
    let blocking: BlockingPool
    /// Where requests that may take long are answered (`HTTPResponder.mayTakeLong`), apart
    /// from the writes on `blocking`.
    let longRequests: BlockingPool
    /// Connections suspended and not yet resumed: libmicrohttpd must not be stopped before 0.
    let suspended = Atomic<Int>(0)

    init(responder: any HTTPResponder, maxBodySize: Int, blockingThreads: Int, longRequestThreads: Int) {
        self.responder = responder
        self.maxBodySize = maxBodySize
        blocking = BlockingPool(limit: blockingThreads)
        longRequests = BlockingPool(limit: longRequestThreads)
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer) -> DaemonContext {
        Unmanaged<DaemonContext>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// A connection handed to the thread that resumes it; libmicrohttpd allows resuming from any thread.
private struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The answer to a suspended request, made on a blocking thread and queued on a worker.
final class PendingAnswer: Sendable {
    private let response = Mutex<Response?>(nil)

    func set(_ answer: Response) {
        response.withLock { $0 = answer }
    }

    /// The answer once it is made, or nil before.
    func take() -> Response? {
        response.withLock { response in
            defer { response = nil }
            return response
        }
    }
}

// The callbacks live in this library module, not in an executable's top-level code: closures
// there are main-actor isolated, and Swift 6 traps when libmicrohttpd's threads call them.
enum DaemonCallbacks {
    /// `MHD_OPTION_URI_LOG_CALLBACK`: the one place the request target is seen unparsed. Rebuilding
    /// the query from the GET arguments would lose `+` (turned into a space before any unescape
    /// callback) and a bare `?`. Its result becomes `*con_cls`.
    static let requestStarted: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { cls, uri, _ in
        guard let cls else { return nil }
        let accumulator = RequestAccumulator(rawTarget: uri.map { String(cString: $0) } ?? "")
        if let uri { leaveQueryUnsplit(UnsafeMutablePointer(mutating: uri)) }
        DaemonContext.from(cls).inFlight.add(1, ordering: .relaxed)
        return Unmanaged.passRetained(accumulator).toOpaque()
    }

    /// After this callback, libmicrohttpd 0.9.75 splits the query into GET arguments in the
    /// connection's pool (`connectionMemoryLimit`), which nothing here reads. A 3.5 KB query of 500 short arguments
    /// ran the pool out; libmicrohttpd ignores that failure, and the connection hung without an
    /// answer until its timeout. The target lies in its read buffer, and where the query starts
    /// was found before this callback: ending the text right after `?` leaves nothing to split.
    private static func leaveQueryUnsplit(_ uri: UnsafeMutablePointer<CChar>) {
        guard let mark = strchr(uri, Int32(UInt8(ascii: "?"))) else { return }
        mark[1] = 0
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: frees what `requestStarted` made, whatever way the request ended.
    static let requestCompleted: MHD_RequestCompletedCallback = { cls, _, conCls, _ in
        guard let cls, let conCls, let state = conCls.pointee else { return }
        conCls.pointee = nil
        Unmanaged<RequestAccumulator>.fromOpaque(state).release()
        DaemonContext.from(cls).inFlight.subtract(1, ordering: .releasing)
    }

    /// `MHD_OPTION_UNESCAPE_CALLBACK`: leaves libmicrohttpd's copies of the URL and arguments
    /// encoded. Nothing reads them (the raw target comes from `requestStarted`), so decoding them
    /// would be wasted; the router decodes, and refuses bad escapes.
    static let keepEscaped: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = { _, _, text in
        text.map { strlen($0) } ?? 0
    }

    /// Collects every header occurrence in order, so that duplicates stay visible.
    private static let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key else { return .YES }
        let head = cls.assumingMemoryBound(to: ReceivedHead.self)
        guard let name = HTTPField.Name(String(cString: key)) else {
            head.pointee.invalidFieldName = true
            return .NO
        }
        head.pointee.headers.add(name, value.map { String(cString: $0) } ?? "")
        return .YES
    }

    /// The access handler, called first with the headers, then once per body chunk, then with no data.
    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, _, uploadData, uploadDataSize, conCls in
        guard let cls, let connection, let uploadDataSize, let state = conCls?.pointee else { return .NO }
        let context = DaemonContext.from(cls)
        let request = Unmanaged<RequestAccumulator>.fromOpaque(state).takeUnretainedValue()

        if !request.headersRead {
            var head = ReceivedHead()
            withUnsafeMutablePointer(to: &head) { pointer in
                _ = MHD_get_connection_values(connection, .HEADER_KIND, collectHeader, pointer)
            }
            request.setHead(method: method.map { String(cString: $0) } ?? "", received: head, clientAddress: ClientAddress.of(connection))
            request.maxBodySize = context.responder.maxBodySize(for: request.withoutBody) ?? context.maxBodySize
            if let refusal = request.refusal(maxBodySize: request.maxBodySize) {
                // Queued before the body is read: libmicrohttpd then skips `100 Continue`, drops the body
                // and, with `Connection: close`, the connection, so nothing left over is read as a request.
                let response = context.responder.respond(to: refusal, request: request.withoutBody)
                return queue(response, on: connection, closing: true)
            }
            return .YES
        }

        if uploadDataSize.pointee > 0 {
            let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee)
            uploadDataSize.pointee = 0
            return request.append(chunk, maxBodySize: request.maxBodySize) ? .YES : .NO
        }

        if request.bodyTooLarge {
            let response = context.responder.respond(to: .bodyTooLarge(limit: request.maxBodySize), request: request.withoutBody)
            return queue(response, on: connection, closing: true)
        }
        if let pending = request.pending {
            // Called again after `resume`, or woken early while the answer is still being made.
            guard let response = pending.take() else { return .YES }
            return queue(response, on: connection, closing: context.draining.load(ordering: .relaxed))
        }
        let complete = request.complete
        let pool = context.responder.mayBlock(complete)
            ? context.blocking : context.responder.mayTakeLong(complete) ? context.longRequests : nil
        if let pool {
            let pending = PendingAnswer()
            request.pending = pending
            answerSuspended(complete, into: pending, on: connection, pool: pool, context: context)
            return .YES
        }
        return queue(answer(complete, context: context), on: connection, closing: context.draining.load(ordering: .relaxed))
    }

    private static func answer(_ request: Request, context: DaemonContext) -> Response {
        var response = context.responder.respond(to: request)
        if request.method == .head {
            // libmicrohttpd still writes the final empty chunk of a chunked answer to HEAD, which
            // a client then reads as the start of the next response: HEAD gets no stream at all.
            response.stream = nil
        }
        return response
    }

    /// Suspends the connection and answers on the blocking pool; the resume makes libmicrohttpd
    /// call the access handler again, which queues the answer.
    private static func answerSuspended(
        _ request: Request, into pending: PendingAnswer, on connection: OpaquePointer, pool: BlockingPool, context: DaemonContext
    ) {
        context.suspended.add(1, ordering: .relaxed)
        MHD_suspend_connection(connection)
        let suspended = SuspendedConnection(pointer: connection)
        pool.run {
            pending.set(answer(request, context: context))
            MHD_resume_connection(suspended.pointer)
            context.suspended.subtract(1, ordering: .releasing)
        }
    }

    /// Hands the response to libmicrohttpd and queues it: a large kept body as a file it sends
    /// with `sendfile` (`KeptFile`), any other body lent, not copied (`SharedBody`), a stream
    /// pulled as it is sent. `Content-Length` and `Transfer-Encoding` are left out:
    /// libmicrohttpd frames the body itself (and keeps the length right for HEAD).
    private static func queue(_ response: Response, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
        let created = response.stream.map { StreamedBody.response($0, on: connection) }
            ?? response.keptBody.flatMap(KeptFile.response) ?? SharedBody.response(response.body)
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for field in response.headers {
            if field.name == .contentLength || field.name == .transferEncoding || (closing && field.name == .connection) {
                continue
            }
            // libmicrohttpd refuses (and so drops) a value with CR or LF: no header injection.
            // It refuses an empty value too; one space reads as empty to every client.
            // `withCString` lends a native string's own bytes; passing the String itself made a
            // `utf8CString` array of each name and value (a fifth of this function, callgrind).
            let value = field.value.isEmpty ? " " : field.value
            field.name.rawName.withCString { name in
                value.withCString { value in _ = MHD_add_response_header(created, name, value) }
            }
        }
        if closing {
            _ = MHD_add_response_header(created, "Connection", "close")
        }
        response.requestID?.withText { text in
            text.withMemoryRebound(to: CChar.self) { _ = MHD_add_response_header(created, "X-Request-Id", $0.baseAddress) }
        }
        let status = (100...999).contains(response.status.code) ? response.status.code : 500
        return MHD_queue_response(connection, UInt32(status), created)
    }
}
