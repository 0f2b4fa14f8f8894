import DiaryAPI
import Foundation

// MARK: - Errors

/// An error of `DiaryClient`. Each `description` is one line a person understands,
/// without an "error:" prefix and without the token.
public protocol DiaryClientError: Error, Sendable, CustomStringConvertible {}

/// The server answered with a status other than success.
public struct APIError: DiaryClientError, Equatable {
    public var status: Int
    /// The `application/problem+json` body, when the answer had one.
    public var problem: Problem?
    /// The body as text, when it was not a problem document (shortened, one line).
    public var text: String

    public init(status: Int, problem: Problem?, text: String = "") {
        self.status = status
        self.problem = problem
        self.text = text
    }

    /// Reads a failed answer: a `Problem` when the body decodes as one, else its text.
    public init(response: RawResponse) {
        let problem = response.body.isEmpty ? nil : try? DiaryJSON.makeDecoder().decode(Problem.self, from: response.body)
        self.init(
            status: response.status,
            problem: problem,
            text: problem == nil ? TextLine.oneLine(String(decoding: response.body, as: UTF8.self)) : ""
        )
    }

    /// "entry 42 does not exist (404)"; for validation failures the fields: "title must not be empty (422)".
    public var description: String {
        let message: String
        if let problem, let errors = problem.errors, !errors.isEmpty {
            message = TextLine.fieldMessages(errors)
        } else if let problem, !problem.detail.isEmpty {
            message = TextLine.oneLine(problem.detail)
        } else if let problem, !problem.title.isEmpty {
            message = TextLine.oneLine(problem.title)
        } else if !text.isEmpty {
            message = "the server answered: \(text)"
        } else {
            message = StatusPhrase.of(status)
        }
        return "\(message) (\(status))"
    }
}

/// The server could not be reached, or the exchange broke off before an answer.
public struct ConnectionError: DiaryClientError, Equatable {
    /// The server URL as configured (not the full request URL).
    public var serverURL: URL
    /// A short phrase such as "Connection refused".
    public var reason: String

    public init(serverURL: URL, reason: String) {
        self.serverURL = serverURL
        self.reason = reason
    }

    /// "cannot reach the diary server at http://127.0.0.1:8080: Connection refused"
    public var description: String {
        "cannot reach the diary server at \(serverURL.absoluteString): \(TextLine.oneLine(reason))"
    }
}

/// A successful answer whose body is not the JSON the endpoint promises.
public struct ResponseError: DiaryClientError, Equatable {
    public var method: String
    public var path: String
    public var status: Int
    public var reason: String

    public init(method: String, path: String, status: Int, reason: String) {
        self.method = method
        self.path = path
        self.status = status
        self.reason = reason
    }

    public var description: String {
        "the server's answer to \(method) \(path) (\(status)) could not be read: \(TextLine.oneLine(reason))"
    }
}

/// An endpoint that needs a token was called without one; nothing was sent.
public struct MissingTokenError: DiaryClientError, Equatable {
    public var method: String
    public var path: String

    public init(method: String, path: String) {
        self.method = method
        self.path = path
    }

    public var description: String {
        "\(method) \(path) needs an API token"
    }
}

/// A request body that breaks the API's rules, found before sending.
public struct InvalidRequestError: DiaryClientError, Equatable {
    public var errors: [FieldError]

    public init(_ errors: [FieldError]) {
        self.errors = errors
    }

    /// "title must not be empty"
    public var description: String {
        TextLine.fieldMessages(errors)
    }
}

// MARK: - Helpers

/// Turning server text into one printable line.
public enum TextLine {
    /// Field errors as one line: "title must not be empty; body must not contain NUL characters".
    public static func fieldMessages(_ errors: [FieldError]) -> String {
        errors.map { oneLine("\($0.field) \($0.message)") }.joined(separator: "; ")
    }

    /// `text` with runs of white space and control characters made one space, trimmed,
    /// and cut to `limit` characters with "…".
    public static func oneLine(_ text: String, limit: Int = 200) -> String {
        var out = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.unicodeScalars.append(" ")
                pendingSpace = false
            }
            out.unicodeScalars.append(scalar)
        }
        return out.count > limit ? String(out.prefix(limit - 1)) + "…" : out
    }
}

/// What a status says when the answer itself says nothing: the one place the client names statuses.
enum StatusPhrase {
    /// The reason phrase of a common status in lower case ("not found"), else a neutral phrase.
    static func of(_ status: Int) -> String {
        switch status {
        case 400: "bad request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not found"
        case 405: "method not allowed"
        case 409: "conflict"
        case 413: "content too large"
        case 415: "unsupported media type"
        case 422: "unprocessable content"
        case 429: "too many requests"
        case 500: "internal server error"
        case 502: "bad gateway"
        case 503: "service unavailable"
        case 504: "gateway timeout"
        default: "the server gave no reason"
        }
    }
}
