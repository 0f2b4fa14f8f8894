import Foundation
import ProcessControl
import Terminal

// MARK: - Editor

/// Lets the user write text in `$EDITOR` (else `vi`) on a temporary file, as `git commit` does.
enum Editor {
    /// Opens the editor on a private temporary file holding `initial` and returns the file's
    /// text once the editor exits successfully. The file is removed afterwards.
    static func edit(_ initial: String, environment: [String: String] = RunEnvironment.variables) throws -> String {
        let editor = environment["EDITOR"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? "vi"
        let path = try makeTemporaryFile(holding: initial)
        defer { try? FileManager.default.removeItem(atPath: path) }

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
        do {
            return try PrivateFile.create(
                in: FileManager.default.temporaryDirectory.path, prefix: prefix, suffix: "md", holding: Array(text.utf8)
            )
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Runs `arguments` with the terminal inherited and waits; returns its exit status.
    private static func run(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        do {
            return try ChildProcess.run(arguments, environment: environment)
        } catch {
            throw CommandFailure("cannot run the editor: \(error)")
        }
    }
}

// MARK: - Standard input

enum StandardInput {
    /// Whether standard input is a terminal (a person typing) rather than a pipe or file.
    static var isTerminal: Bool { Terminal.isTerminal(.input) }

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
