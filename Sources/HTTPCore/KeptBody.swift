import Synchronization

/// The body of a kept answer (one the response cache serves again), shared by every response
/// that answers with it: the same bytes each time, so that a transport may prepare them once
/// for sending and keep what it made here, for as long as the body itself is kept.
///
/// Why: libmicrohttpd sends a file with `sendfile`, the kernel taking the pages as they are,
/// where a buffer is copied into the socket on every send; MicroHTTPDServer keeps a large kept
/// body as a sealed memory file here (`KeptFile`). What it made is released with this object:
/// when the cache has dropped the answer and the last response holding it has been sent.
public final class KeptBody: Sendable {
    public let bytes: [UInt8]
    private let prepared = Mutex<(any AnyObject & Sendable)?>(nil)

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// What `make` made of `bytes` the first time it was asked for (or the first time it did
    /// not fail), kept from then on. `make` runs under this body's lock, at most once at a
    /// time. A transport asks with one type only; asked with another, this answers nil.
    public func prepared<Prepared: AnyObject & Sendable>(by make: ([UInt8]) -> Prepared?) -> Prepared? {
        prepared.withLock { prepared in
            if let made = prepared { return made as? Prepared }
            let made = make(bytes)
            prepared = made
            return made
        }
    }
}
