import Foundation

/// Lines appended in memory and written by a thread of its own, so that a worker answering a
/// request never waits on the disk: a line is written into memory under a lock; the thread writes
/// what has gathered every `flushInterval`, or sooner once `flushBytes` are waiting.
/// `close()` writes everything appended before it returns: a clean shutdown loses nothing.
/// If the disk stops taking bytes, at most `pendingLimit` wait; lines past that are dropped
/// and counted (`droppedLines`) rather than letting memory grow or a worker block.
public final class BufferedLogFile: @unchecked Sendable {
    public static let flushInterval: TimeInterval = 0.2
    public static let flushBytes = 64 << 10
    public static let pendingLimit = 8 << 20

    /// Why the log could not be opened.
    public struct OpenError: Error, CustomStringConvertible {
        public let description: String
    }

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var dropped = 0
    private var isClosing = false
    private var isFinished = false

    /// Opens `path` for appending (created 0640 when missing), or standard output for `-`.
    public init(path: String) throws(OpenError) {
        if path == "-" {
            descriptor = STDOUT_FILENO
            ownsDescriptor = false
        } else {
            descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
            guard descriptor >= 0 else {
                throw OpenError(description: "cannot open the access log \(path): \(String(cString: strerror(errno)))")
            }
            ownsDescriptor = true
        }
        pending.reserveCapacity(Self.flushBytes * 2)
        let thread = Thread { [self] in run() }
        thread.name = "diary-access-log"
        thread.start()
    }

    /// Lines dropped because the disk fell `pendingLimit` bytes behind.
    public var droppedLines: Int {
        condition.withLock { dropped }
    }

    /// Appends one line (made by the caller, on its own stack) to the bytes waiting, under the lock.
    public func append(_ line: UnsafeBufferPointer<UInt8>) {
        condition.withLock {
            guard !isClosing, pending.count < Self.pendingLimit else {
                dropped += 1
                return
            }
            pending.append(contentsOf: line)
            if pending.count >= Self.flushBytes { condition.signal() }
        }
    }

    /// Writes what is pending, stops the thread and closes the file; later lines are dropped.
    public func close() {
        condition.withLock {
            isClosing = true
            condition.broadcast()
            while !isFinished { condition.wait() }
        }
        if ownsDescriptor { Glibc.close(descriptor) }
    }

    private func run() {
        var writing: [UInt8] = []
        writing.reserveCapacity(Self.flushBytes * 2)
        while true {
            let closing = condition.withLock {
                if pending.count < Self.flushBytes && !isClosing {
                    _ = condition.wait(until: Date(timeIntervalSinceNow: Self.flushInterval))
                }
                swap(&pending, &writing)
                return isClosing
            }
            write(writing)
            writing.removeAll(keepingCapacity: true)
            if closing && condition.withLock({ pending.isEmpty }) { break }
        }
        condition.withLock {
            isFinished = true
            condition.broadcast()
        }
    }

    /// Writes all of `bytes`, across partial writes and signals; gives up on any other error
    /// (a full disk), which loses those lines but never stops the server.
    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
