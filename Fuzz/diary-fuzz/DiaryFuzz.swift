import SeededRandom
import Foundation

// Two ways in. Built with `-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer`, main hands over to
// libFuzzer, which calls `fuzzOne` with its inputs (SwiftPM links an executable's main under its
// own name, so libFuzzer's main cannot be used; `LLVMFuzzerRunDriver` is libFuzzer's way in for
// that). Built plainly (as `swift build` does), this is a seeded random fuzzer: random bytes
// through the same decoder, the seed printed so that a failure replays with `diary-fuzz --seed N`.

#if FUZZING
nonisolated(unsafe) private var harness: Harness?

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if harness == nil {
        harness = try! Harness()
        atexit { harness?.removeFiles() }
    }
    let result = harness!.check(Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)))
    if let failure = result.failure {
        fatalError("\(failure)\n  \(Harness.describe(result.request))\n  answer: \(String(decoding: result.response.body, as: UTF8.self))")
    }
    return 0
}
#endif

@main
struct DiaryFuzz {
    static func main() throws {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv, fuzzOne))
        #else
        try seeded()
        #endif
    }

    /// The seeded random fuzzer: `--seed N --seconds S --iterations N`.
    static func seeded() throws {
        var seed = UInt64.random(in: 1...UInt64(UInt32.max))
        var seconds = 10.0
        var iterations = Int.max
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            let value = arguments.next() ?? ""
            switch argument {
            case "--seed" where UInt64(value) != nil: seed = UInt64(value)!
            case "--seconds" where Double(value) != nil: seconds = Double(value)!
            case "--iterations" where Int(value) != nil: iterations = Int(value)!
            default: usage()
            }
        }
        print("diary-fuzz: seed \(seed) (replay: diary-fuzz --seed \(seed))")
        fflush(nil)
        let harness = try Harness()
        defer { harness.removeFiles() }
        var random = SplitMix64(seed: seed)
        var statuses: [Int: Int] = [:]
        let deadline = Date().addingTimeInterval(seconds)
        var count = 0
        while count < iterations && Date() < deadline {
            let length = Int(random.next() % 700)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let result = harness.check(bytes)
            count += 1
            statuses[result.response.status.code, default: 0] += 1
            if let failure = result.failure {
                print("diary-fuzz: FAIL at iteration \(count) of seed \(seed): \(failure)\n  \(Harness.describe(result.request))")
                print("  answer: \(String(decoding: result.response.body.prefix(500), as: UTF8.self))")
                exit(1)
            }
        }
        let summary = statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
        print("diary-fuzz: ok, \(count) requests in \(seconds) s, no 5xx; statuses \(summary)")
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: diary-fuzz [--seed N] [--seconds S] [--iterations N]\n".utf8))
        exit(64)
    }
}
