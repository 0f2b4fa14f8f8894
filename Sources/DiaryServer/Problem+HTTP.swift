import DiaryAPI
import DiaryStore
import HTTPCore
import HTTPTypes

// MARK: - Problems the API answers with

extension Problem {
    static func badRequest(_ detail: String, errors: [FieldError]? = nil) -> Problem {
        Problem(title: "Bad Request", status: 400, detail: detail, errors: errors)
    }

    static func invalidParameter(_ error: ParameterError) -> Problem {
        badRequest("\(error.name) \(error.message)", errors: [FieldError(field: error.name, message: error.message)])
    }

    static func unauthorized(_ detail: String) -> Problem {
        Problem(title: "Unauthorized", status: 401, detail: detail)
    }

    /// A token whose scope does not reach what it asked for (a `read` token that writes).
    /// Micropub's `insufficient_scope` is the same answer.
    static func insufficientScope(needed: TokenScope) -> Problem {
        Problem(
            type: "/problems/insufficient-scope", title: "Forbidden", status: 403,
            detail: "This token may only read; this request needs a token with the \(needed.rawValue) scope."
        )
    }

    static func notFound(_ detail: String) -> Problem {
        Problem(title: "Not Found", status: 404, detail: detail)
    }

    static func unsupportedMediaType(_ detail: String) -> Problem {
        Problem(title: "Unsupported Media Type", status: 415, detail: detail)
    }

    static func validation(_ failure: ValidationFailure) -> Problem {
        let summary = failure.errors.map { "\($0.field) \($0.message)" }.joined(separator: "; ")
        return Problem(
            type: "/problems/validation-error", title: "Unprocessable Content", status: 422,
            detail: summary, errors: failure.errors
        )
    }

    static func internalError() -> Problem {
        Problem(title: "Internal Server Error", status: 500, detail: "The server could not answer this request; it has been logged.")
    }

    /// The answer to a store failure; `.unavailable` keeps its cause out of the response.
    init(_ error: StoreError) {
        switch error.kind {
        case .notFound: self.init(title: "Not Found", status: 404, detail: error.description)
        case .forbidden: self.init(title: "Forbidden", status: 403, detail: error.description)
        case .conflict: self.init(title: "Conflict", status: 409, detail: error.description)
        case .preconditionFailed:
            self.init(
                title: "Precondition Failed", status: 412,
                detail: "\(error.description); nothing was changed. GET it again for its current ETag."
            )
        case .keyReused:
            self.init(
                type: "/problems/idempotency-key-reused", title: "Unprocessable Content", status: 422,
                detail: "This Idempotency-Key was already used with a different request; use a new key for a new request.",
                errors: [FieldError(field: HTTPField.Name.idempotencyKey.rawName, message: "was already used with a different request")]
            )
        case .quotaExceeded:
            // 507: the room is the user's, not the request's size (413 is for one upload too large).
            self.init(
                type: "/problems/media-quota-exceeded", title: "Insufficient Storage", status: 507,
                detail: "\(error.description); nothing was stored. Delete images you no longer use (DELETE /api/media/{id})."
            )
        case .expired:
            self.init(
                type: "/problems/changes-cursor-expired", title: "Gone", status: 410,
                detail: "\(error.description); sync again from the beginning (no since)."
            )
        case .unavailable:
            self.init(title: "Service Unavailable", status: 503, detail: "The database cannot answer now, and nothing was written. Try again later.")
        case .timedOut:
            self.init(
                title: "Service Unavailable", status: 503,
                detail: "This request took longer than the server lets one request take, and was stopped. "
                    + "Try a narrower search, or again later."
            )
        }
    }
}

// MARK: - Encoding

extension Response {
    /// A problem+json response; 401 carries the challenge a client needs.
    init(problem: Problem, headers extra: HTTPFields = HTTPFields()) {
        var headers = HTTPFields.standard(contentType: "\(Problem.mediaType); charset=utf-8", cacheable: false)
        if problem.status == 401 {
            headers.add(.wwwAuthenticate, #"Bearer realm="diary""#)
        }
        if problem.status == 503 || problem.status == 429 {
            // A 503 of a busy or timed-out search, or of a database away; a 429 of a search rate
            // of one a second or more: either is worth trying again in a second.
            headers.add(.retryAfter, "1")
        }
        for field in extra { headers[field.name] = field.value }
        self.init(status: HTTPResponse.Status(code: problem.status), headers: headers, body: JSONCoding.encode(problem))
    }
}

extension HTTPFields {
    /// The headers every response carries; `cacheable` is false for answers that depend on who asks.
    static func standard(contentType: String, cacheable: Bool) -> HTTPFields {
        [
            .contentType: contentType,
            .xContentTypeOptions: "nosniff",
            .cacheControl: cacheable ? "no-cache" : "no-store",
        ]
    }
}
