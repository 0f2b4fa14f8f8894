/// Rules a request body must meet, shared so that the client can check before it sends.
public protocol ValidatableBody: Sendable {
    /// The body with its fields normalised (titles trimmed), or the list of what is wrong.
    func validated() -> Result<Self, ValidationFailure>
}

/// The fields of a body that broke a rule; the server answers it with 422.
public struct ValidationFailure: Error, Sendable, Equatable {
    public var errors: [FieldError]

    public init(_ errors: [FieldError]) {
        self.errors = errors
    }
}

public enum EntryRules {
    /// Titles are 1 to 200 characters after trimming white space. Characters are counted as
    /// JSON Schema counts them (Unicode code points), so that the OpenAPI document states the
    /// rule exactly.
    public static let titleLength = 1...200

    /// The white space trimmed from titles: JSON's own four, and the ideographic space.
    public static let trimmedWhitespace: Set<Unicode.Scalar> = [" ", "\t", "\n", "\r", "\u{3000}"]

    /// C0 and C1 controls (including line breaks), which a one-line title cannot hold.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The title trimmed, or why it cannot be one.
    public static func title(_ raw: String, field: String = "title") -> Result<String, FieldError> {
        let scalars = raw.unicodeScalars
        guard let first = scalars.firstIndex(where: { !trimmedWhitespace.contains($0) }) else {
            return .failure(FieldError(field: field, message: "must not be empty"))
        }
        let last = scalars.lastIndex(where: { !trimmedWhitespace.contains($0) })!
        let trimmed = scalars[first...last]
        if trimmed.count > titleLength.upperBound {
            return .failure(FieldError(field: field, message: "must be at most \(titleLength.upperBound) characters (it has \(trimmed.count))"))
        }
        if trimmed.contains(where: isControl) {
            return .failure(FieldError(field: field, message: "must not contain control characters such as line breaks"))
        }
        return .success(String(trimmed))
    }

    /// Bodies may be empty; only a NUL character is refused, since it ends a C string.
    public static func body(_ raw: String, field: String = "body") -> Result<String, FieldError> {
        raw.utf8.contains(0) ? .failure(FieldError(field: field, message: "must not contain NUL characters")) : .success(raw)
    }
}

// MARK: - Bodies

/// Gathers every field's failure, so that one answer lists all that is wrong.
private struct FieldChecks {
    var errors: [FieldError] = []

    mutating func check(_ result: Result<String, FieldError>) -> String {
        switch result {
        case .success(let value): return value
        case .failure(let error): errors.append(error); return ""
        }
    }

    func finish<T>(_ value: T) -> Result<T, ValidationFailure> {
        errors.isEmpty ? .success(value) : .failure(ValidationFailure(errors))
    }
}

extension NewEntry: ValidatableBody {
    public func validated() -> Result<NewEntry, ValidationFailure> {
        var checks = FieldChecks()
        let title = checks.check(EntryRules.title(title)), body = checks.check(EntryRules.body(body))
        if let diaryID, diaryID <= 0 { checks.errors.append(FieldError(field: "diary_id", message: "must be a positive integer")) }
        return checks.finish(NewEntry(title: title, body: body, diaryID: diaryID))
    }
}

extension EntryReplacement: ValidatableBody {
    public func validated() -> Result<EntryReplacement, ValidationFailure> {
        var checks = FieldChecks()
        let title = checks.check(EntryRules.title(title)), body = checks.check(EntryRules.body(body))
        return checks.finish(EntryReplacement(title: title, body: body))
    }
}

extension EntryPatch: ValidatableBody {
    public func validated() -> Result<EntryPatch, ValidationFailure> {
        var checks = FieldChecks()
        if title == nil && body == nil {
            checks.errors.append(FieldError(field: "title", message: "send title, body or both to change"))
        }
        let title = self.title.map { checks.check(EntryRules.title($0)) }
        let body = self.body.map { checks.check(EntryRules.body($0)) }
        return checks.finish(EntryPatch(title: title, body: body))
    }
}

extension NewDiary: ValidatableBody {
    public func validated() -> Result<NewDiary, ValidationFailure> {
        var checks = FieldChecks()
        let title = checks.check(EntryRules.title(title))
        return checks.finish(NewDiary(title: title))
    }
}

extension NoBody: ValidatableBody {
    public func validated() -> Result<NoBody, ValidationFailure> { .success(self) }
}
