import DiaryStore
import Foundation
import Synchronization

/// Makes scheduled entries appear at their time, with no user write, on every server: before a
/// request is answered (and before a kept answer is served), the clock is compared with the
/// store's `nextPublication()`, and once it is reached the store's `publishDue(at:)` runs
/// first. The publication is a write like any other: it moves the data version, so every kept
/// answer on every server sharing the database is dropped, and the request that caused it
/// already reads the entry published. So no answer outlives the next scheduled time.
///
/// `nextPublication()` changes only with a write, so it is read again only when the data
/// version moves, and kept beside it: a request costs one comparison of times more than the
/// version read the response cache makes anyway.
public final class ScheduledPublication: Sendable {
    private let store: any DiaryStore
    private let readVersion: @Sendable () -> Int64?
    private let clock: @Sendable () -> Date

    /// The next publication, as read under `version`.
    private struct Known {
        var version: Int64
        var next: Date?
    }
    private let known = Mutex<Known?>(nil)
    /// Held while publishing: the requests that find the time come at once wait for one
    /// publication instead of each writing one.
    private let publishing = Mutex(())

    /// - Parameters:
    ///   - version: the store's data version, as the response cache reads it.
    ///   - clock: the time; tests pass their own.
    public init(store: any DiaryStore, clock: @escaping @Sendable () -> Date = Date.init, version: @escaping @Sendable () -> Int64?) {
        self.store = store
        readVersion = version
        self.clock = clock
    }

    /// The data version after whatever is due now was published; nil when the store cannot
    /// tell (then nothing may be served from the cache: a kept answer could be one from before
    /// a publication that is due).
    public func versionPublishingDue() -> Int64? {
        guard let version = readVersion() else { return nil }
        guard let known = next(under: version) else { return nil }
        guard let due = known, clock() >= due else { return version }
        return publishing.withLock { _ in
            // Another request may have published while this one waited: ask again.
            guard let version = readVersion(), let known = next(under: version) else { return nil }
            let now = clock()
            guard let due = known, now >= due else { return version }
            guard (try? store.publishDue(at: now)) != nil else { return nil }
            return readVersion()
        }
    }

    /// The next publication as of `version`, read when not known for it; nil when it cannot be read.
    private func next(under version: Int64) -> Date?? {
        if let kept = known.withLock({ $0 }), kept.version == version { return .some(kept.next) }
        let next: Date?
        do {
            next = try store.nextPublication()
        } catch {
            return nil
        }
        known.withLock { known in
            // Versions only move forward: an older reading never replaces a newer one.
            if known == nil || known!.version <= version { known = Known(version: version, next: next) }
        }
        return .some(next)
    }
}
