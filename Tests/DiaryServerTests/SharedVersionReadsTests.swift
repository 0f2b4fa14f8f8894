import DiaryServer
import Foundation
import Synchronization
import Testing

/// Shared reads of the data version: a caller never gets a read that began before it did
/// (that read may have missed a write acknowledged just before the caller asked), and callers
/// that wait together share one read.
@Suite struct SharedVersionReadsTests {
    /// A read the test lets finish, and the number of reads started.
    final class GatedVersion: Sendable {
        let started = Mutex(0)
        let gates = Mutex<[Int: DispatchSemaphore]>([:])
        let startedSignal = DispatchSemaphore(value: 0)

        func gate(_ number: Int) -> DispatchSemaphore {
            gates.withLock { gates in
                if let gate = gates[number] { return gate }
                let gate = DispatchSemaphore(value: 0)
                gates[number] = gate
                return gate
            }
        }

        /// Read number n answers n, once the test opens its gate.
        func read() -> Int64? {
            let number = started.withLock { count in
                count += 1
                return count
            }
            startedSignal.signal()
            gate(number).wait()
            return Int64(number)
        }
    }

    /// What the callers got, in the order they got it.
    final class Answers: Sendable {
        let values = Mutex<[Int64?]>([])
        func append(_ value: Int64?) { values.withLock { $0.append(value) } }
        var all: [Int64?] { values.withLock { $0 } }
    }

    /// Runs `body` on a thread of its own, in `group`. Every caller here blocks, and GCD's
    /// global queue adds threads slowly when its threads block: callers queued behind the
    /// others took seconds to start, and once past the 10 s deadline (1 run in 8).
    func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }

    /// Waits (up to 10 s) until `count` callers wait on `reads`: a condition, not a sleep.
    func waitUntil(_ reads: SharedVersionReads, hasWaiting count: Int, _ comment: Comment) throws {
        let deadline = Date(timeIntervalSinceNow: 10)
        while reads.waiting < count {
            try #require(Date() < deadline, comment)
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    @Test func aCallDuringAReadWaitsForTheNextRead() throws {
        let source = GatedVersion()
        let reads = SharedVersionReads { source.read() }
        let first = Answers(), second = Answers()
        let done = DispatchGroup()
        spawn(done) { first.append(reads.version()) }
        #expect(source.startedSignal.wait(timeout: .now() + 10) == .success, "read 1 started")
        // Read 1 is under way: a caller arriving now must not be answered by it.
        spawn(done) { second.append(reads.version()) }
        try waitUntil(reads, hasWaiting: 1, "the second caller waits while read 1 is under way")
        source.gate(1).signal()
        #expect(source.startedSignal.wait(timeout: .now() + 10) == .success, "read 2 started for the second caller")
        source.gate(2).signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(first.all == [1])
        #expect(second.all == [2])
    }

    @Test func callersWaitingTogetherShareOneRead() throws {
        let source = GatedVersion()
        let reads = SharedVersionReads { source.read() }
        let answers = Answers()
        let done = DispatchGroup()
        spawn(done) { answers.append(reads.version()) }
        #expect(source.startedSignal.wait(timeout: .now() + 10) == .success)
        // Eight callers arrive while read 1 is under way; they all wait for read 2.
        let arrived = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            spawn(done) {
                arrived.signal()
                answers.append(reads.version())
            }
        }
        for _ in 0..<8 { #expect(arrived.wait(timeout: .now() + 10) == .success) }
        // Each caller signalled just before it asked; let it reach its wait before read 1 ends.
        try waitUntil(reads, hasWaiting: 8, "8 callers wait for the next read")
        source.gate(1).signal()
        #expect(source.startedSignal.wait(timeout: .now() + 10) == .success)
        source.gate(2).signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(source.started.withLock { $0 } == 2)
        #expect(answers.all.sorted { ($0 ?? 0) < ($1 ?? 0) } == [1] + Array(repeating: 2, count: 8))
    }

    /// Within the lease a finished read serves later callers without a round trip, and so
    /// does one under way (it began recently enough); with no lease, neither does.
    @Test func aReadServesTheCallersOfItsLease() throws {
        let source = GatedVersion()
        let leased = SharedVersionReads(lease: .seconds(3600)) { source.read() }
        let done = DispatchGroup()
        let answers = Answers()
        spawn(done) { answers.append(leased.version()) }
        #expect(source.startedSignal.wait(timeout: .now() + 10) == .success)
        // A caller arriving while read 1 is under way, within its lease, waits for its answer.
        spawn(done) { answers.append(leased.version()) }
        try waitUntil(leased, hasWaiting: 1, "the second caller waits for read 1")
        source.gate(1).signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        // And one arriving after it ended is answered at once, by the same read.
        #expect(leased.version() == 1)
        #expect(source.started.withLock { $0 } == 1)
        #expect(answers.all == [1, 1])

        let unleased = GatedVersion()
        let reads = SharedVersionReads(lease: .zero) { unleased.read() }
        unleased.gate(1).signal()
        unleased.gate(2).signal()
        #expect(reads.version() == 1)
        #expect(reads.version() == 2, "a read that ended before the call began is not used without a lease")
    }
}
