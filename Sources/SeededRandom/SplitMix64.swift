/// SplitMix64 (Steele, Lea and Flood): a small, fast generator whose seed replays the same
/// sequence, for reproducible seeded databases and fuzz runs. Not for secrets.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (by remainder: the slight bias is of no matter for test data).
    public mutating func next(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
