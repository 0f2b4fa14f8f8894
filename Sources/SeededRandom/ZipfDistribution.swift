#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ranks drawn with Zipf's law: rank k (from 0) comes up in proportion to 1 / (k + 1)^exponent,
/// as words do in real text. A seeded database drawn this way has both what a benchmark needs:
/// words in nearly every entry and words in a handful of them.
public struct ZipfDistribution: Sendable {
    /// The running sums of the ranks' weights, scaled so that the last is 1.
    private let cumulative: [Double]

    public init(count: Int, exponent: Double = 1) {
        precondition(count > 0, "a distribution needs at least one rank")
        var sums: [Double] = []
        sums.reserveCapacity(count)
        var total = 0.0
        for rank in 1...count {
            total += 1 / pow(Double(rank), exponent)
            sums.append(total)
        }
        cumulative = sums.map { $0 / total }
    }

    public var count: Int { cumulative.count }

    /// The chance that one draw is `rank`.
    public func probability(of rank: Int) -> Double {
        rank == 0 ? cumulative[0] : cumulative[rank] - cumulative[rank - 1]
    }

    /// One rank in `0..<count`: the first whose running sum passes a uniform draw.
    public func rank(using random: inout SplitMix64) -> Int {
        // The top 53 bits make a uniform Double in [0, 1).
        let draw = Double(random.next() >> 11) / Double(1 << 53)
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > draw { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
