import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Editor

/// Lets the user write text in `$EDITOR` (else `vi`) on a temporary file, as `git commit` does.
enum Editor {
    /// Opens the editor on a private temporary file holding `initial` and returns the file's
    /// text once the editor exits successfully. The file is removed afterwards.
    static func edit(_ initial: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let editor = environment["EDITOR"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? "vi"
        let path = try makeTemporaryFile(holding: initial)
        defer { unlink(path) }

        // Through the shell, so that EDITOR may carry arguments ("code --wait"); the path is passed as $1.
        let status = try run(["/bin/sh", "-c", editor + " \"$1\"", "diary-editor", path], environment: environment)
        guard status == 0 else {
            throw CommandFailure("the editor (\(editor)) exited with status \(status); nothing was saved")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read the edited text back from \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("the edited text is not UTF-8; nothing was saved")
        }
        return text
    }

    /// Saves text the server did not take in a new file that is not removed; returns its path.
    static func keep(_ text: String, name: String) throws -> String {
        try makeTemporaryFile(holding: text, prefix: name)
    }

    /// A new file readable only by the user, such as `/tmp/diary-Ab3xYz.md`, holding `text`.
    private static func makeTemporaryFile(holding text: String, prefix: String = "diary") throws -> String {
        let directory = FileManager.default.temporaryDirectory.path
        var template = Array((directory + "/\(prefix)-XXXXXX.md").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 3) }
        guard fd >= 0 else {
            throw CommandFailure("cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        } catch {
            unlink(path)
            throw CommandFailure("cannot write the temporary file \(path)")
        }
        return path
    }

    /// Runs `arguments` with the terminal inherited and waits; returns its exit status
    /// (128 + signal number when a signal ended it).
    private static func run(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], nil, nil, argv, envp)
        guard spawned == 0 else {
            throw CommandFailure("cannot start the editor: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw CommandFailure("lost track of the editor: \(String(cString: strerror(errno)))")
            }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

// MARK: - Standard input

enum StandardInput {
    /// Whether standard input is a terminal (a person typing) rather than a pipe or file.
    static var isTerminal: Bool { isatty(STDIN_FILENO) != 0 }

    /// All of standard input as UTF-8 text.
    static func readAll() throws -> String {
        let data: Data
        do {
            data = try FileHandle.standardInput.readToEnd() ?? Data()
        } catch {
            throw CommandFailure("cannot read standard input: \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("standard input is not UTF-8 text")
        }
        return text
    }
}
