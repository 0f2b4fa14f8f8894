import DiaryStore
import Foundation

/// The store's cursor secret never changes, so it is read once, not on every page.
final class CursorCodecCache: @unchecked Sendable {
    private let lock = NSLock()
    private var cached: CursorCodec?

    func codec(_ store: any DiaryStore) throws(StoreError) -> CursorCodec {
        if let codec = lock.withLock({ cached }) { return codec }
        let codec = CursorCodec(secret: try store.cursorSecret())
        lock.withLock { cached = codec }
        return codec
    }
}
