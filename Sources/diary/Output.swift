import DiaryAPI
import DiaryClient
import Foundation
import Terminal

// MARK: - Output

/// Everything the command prints goes through here: results to standard output as plain
/// text (no colours, so pipes stay clean), failures to standard error as one line.
enum Output {
    /// Writes `text` to standard output, adding a final newline when it has none. By
    /// `Terminal.write`, not `FileHandle`: `Data(text.utf8)` went through the generic `Sequence`
    /// initialiser, about 290,000 instructions the first time in this binary (callgrind).
    static func write(_ text: String) {
        Terminal.write(text.hasSuffix("\n") ? text : text + "\n", to: .output)
    }

    /// Writes `text` to standard error as it is: notices, questions, lines about conflicts.
    static func note(_ text: String) {
        Terminal.write(text, to: .error)
    }

    /// Writes the server's bytes as received, then a newline if they do not end with one.
    static func write(raw body: Data) {
        var bytes = body
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        try? FileHandle.standardOutput.write(contentsOf: bytes)
    }

    /// Sends `endpoint` and prints the server's JSON as received (`json`), or the answer as `format` shows it.
    static func show<E: APIEndpoint>(_ endpoint: E, client: DiaryClient, json: Bool, as format: (E.Response) -> String) async throws {
        if json {
            write(raw: try await client.sendRaw(endpoint).body)
        } else {
            write(format(try await client.send(endpoint)))
        }
    }

    /// "error: MESSAGE" on standard error, on one line.
    static func error(_ message: String) {
        note("error: " + TextLine.oneLine(message, limit: 1000) + "\n")
    }
}

// MARK: - Errors

/// A failure of the command itself (not of a request), with the one line to print.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    static let missingToken = CommandFailure("this command needs an API token: pass --token TOKEN or set DIARY_TOKEN")
}

enum ErrorReport {
    /// The one line to print for an error of a request or of a command, or nil for
    /// argument-parser's own errors (usage, help, `ExitCode`), which it reports itself.
    static func message(for error: any Error) -> String? {
        switch error {
        case is MissingTokenError:
            CommandFailure.missingToken.description
        case let error as any DiaryClientError:
            error.description
        case let error as CommandFailure:
            error.description
        default:
            nil
        }
    }
}
