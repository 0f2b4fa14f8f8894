import Foundation

/// Where the built `diary-server` and `diary` are: `DIARY_BIN_DIR` (set by scripts/test),
/// else the folder of the test bundle, which SwiftPM shares with the executables.
enum Binaries {
    static var directory: URL {
        if let dir = ProcessInfo.processInfo.environment["DIARY_BIN_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("diary-server").path) { return url }
        }
        return URL(fileURLWithPath: ".build/debug")
    }

    static var server: URL { directory.appendingPathComponent("diary-server") }
    static var client: URL { directory.appendingPathComponent("diary") }
}

/// What a finished process printed, and how it ended.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

struct ProcessTimeout: Error, CustomStringConvertible {
    var description: String
}

/// Runs a binary to completion with `stdin` as its standard input, capturing both outputs.
/// One still running after `seconds` is killed, and the run throws: a hung client fails its
/// test instead of holding up the suite.
func run(_ executable: URL, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
         seconds: Double = 120) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["DIARY_SERVER"] = nil
    env["DIARY_TOKEN"] = nil
    env["EDITOR"] = "false"
    env.merge(environment) { $1 }
    process.environment = env
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    let exited = DispatchSemaphore(value: 0), watched = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var killed = false
    let pid = process.processIdentifier
    Thread {
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            killed = true
            kill(pid, SIGKILL)
        }
        watched.signal()
    }.start()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Read both pipes to the end before waiting, so a chatty process never blocks on a full pipe.
    nonisolated(unsafe) var errData = Data()
    let errRead = DispatchSemaphore(value: 0)
    let errReader = Thread {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        errRead.signal()
    }
    errReader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    exited.signal()
    // The semaphores order the other threads' writes of errData and killed before this thread's reads.
    errRead.wait()
    watched.wait()
    if killed {
        throw ProcessTimeout(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(Int(seconds)) s; killed")
    }
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self)
    )
}
