import Foundation
import Glibc
import Synchronization

/// A token bucket per client address for anonymous searches: each address may start `burst`
/// searches at once, then `ratePerSecond`; past that the caller is told to come back
/// (429). The table holds at most `capacity` addresses, so memory stays bounded whatever the
/// number of addresses that ask: a bucket left alone long enough to be full again is the same
/// as none and is dropped first; when every one is in use, the least recently seen goes
/// (that address starts again with a full bucket: the price of a bounded table).
///
/// An IPv6 address is counted by its /64 prefix, the block one subscriber is usually given,
/// so that one client cannot get a fresh bucket per address of its own block.
final class SearchRateLimiter: Sendable {
    let ratePerSecond: Int
    let burst: Int
    let capacity: Int

    /// An address, or an IPv6 /64 prefix, as two words: cheap to hash and to keep.
    struct Key: Hashable {
        var high: UInt64
        var low: UInt64
    }

    private struct Bucket {
        var tokens: Double
        var seen: ContinuousClock.Instant
    }

    private let buckets: Mutex<[Key: Bucket]>

    init(ratePerSecond: Int, burst: Int, capacity: Int = SearchLimits.rememberedAddresses) {
        self.ratePerSecond = max(1, ratePerSecond)
        self.burst = max(1, burst)
        self.capacity = max(1, capacity)
        buckets = Mutex([:])
    }

    /// Takes one token for `address`: false when its bucket is empty. A caller the transport
    /// gives no address for (one calling the application in-process) is not counted; an
    /// address that is not numeric shares one bucket with every such caller.
    func admit(_ address: String?, now: ContinuousClock.Instant = .now) -> Bool {
        guard let address else { return true }
        let key = Self.key(address) ?? Key(high: .max, low: .max)
        let refill = Duration.seconds(burst) / ratePerSecond
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(burst), seen: now)
            let (seconds, attoseconds) = (now - min(bucket.seen, now)).components
            let elapsed = Double(seconds) + Double(attoseconds) / 1e18
            bucket.tokens = min(Double(burst), bucket.tokens + elapsed * Double(ratePerSecond))
            bucket.seen = now
            let admitted = bucket.tokens >= 1
            if admitted { bucket.tokens -= 1 }
            if buckets[key] == nil && buckets.count >= capacity {
                Self.makeRoom(in: &buckets, now: now, refill: refill)
            }
            buckets[key] = bucket
            return admitted
        }
    }

    /// Addresses remembered now: for tests.
    var count: Int { buckets.withLock { $0.count } }

    /// Drops every bucket full again by now, or when none is, the least recently seen one.
    private static func makeRoom(in buckets: inout [Key: Bucket], now: ContinuousClock.Instant, refill: Duration) {
        let before = buckets.count
        buckets = buckets.filter { now - $0.value.seen < refill }
        guard buckets.count == before, let oldest = buckets.min(by: { $0.value.seen < $1.value.seen })?.key else { return }
        buckets.removeValue(forKey: oldest)
    }

    /// The key of a numeric IPv4 or IPv6 address; nil for anything else.
    static func key(_ address: String) -> Key? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return Key(high: 0, low: UInt64(UInt32(bigEndian: v4.s_addr)))
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: v6) { bytes in
            // An IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is that IPv4 address.
            if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return Key(high: 0, low: bytes.suffix(4).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
            return Key(high: 1, low: bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
    }
}
