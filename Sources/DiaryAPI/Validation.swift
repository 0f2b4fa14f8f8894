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

/// Tags: short labels, normalised so that "Travel", " travel " and "TRAVEL" are one tag.
public enum TagRules {
    public static let length = 1...40
    public static let maxPerEntry = 20

    /// One tag normalised: trimmed, lowercased, inner runs of white space turned into `-`.
    public static func tag(_ raw: String, field: String = "tags") -> Result<String, FieldError> {
        // By scalars, not characters: a space or comma followed by a combining mark or an emoji
        // modifier is one Character, but still a space or a comma.
        var tag = ""
        var spaceBefore = false
        for scalar in raw.lowercased().unicodeScalars {
            if scalar.properties.isWhitespace {
                spaceBefore = !tag.isEmpty
            } else {
                if spaceBefore { tag.unicodeScalars.append("-") }
                spaceBefore = false
                tag.unicodeScalars.append(scalar)
            }
        }
        let count = tag.unicodeScalars.count
        guard count >= length.lowerBound else {
            return .failure(FieldError(field: field, message: "must not hold an empty tag"))
        }
        guard count <= length.upperBound else {
            return .failure(FieldError(field: field, message: "must hold tags of at most \(length.upperBound) characters ('\(tag.prefix(20))…' has \(count))"))
        }
        if tag.unicodeScalars.contains(where: { EntryRules.isControl($0) || $0 == "," || $0 == "#" }) {
            return .failure(FieldError(field: field, message: "must hold tags without control characters, commas or '#'"))
        }
        return .success(tag)
    }

    /// A list of tags normalised, without duplicates, sorted. At most `maxPerEntry` may be
    /// *sent*, duplicates included: the contract's `maxItems` bounds the array as sent, and a
    /// rule that counted after dropping duplicates accepted 21 copies of one tag that the
    /// schema refuses.
    public static func tags(_ raw: [String], field: String = "tags") -> Result<[String], FieldError> {
        guard raw.count <= maxPerEntry else {
            return .failure(FieldError(field: field, message: "must hold at most \(maxPerEntry) tags (it has \(raw.count))"))
        }
        var tags = Set<String>()
        for text in raw {
            switch tag(text, field: field) {
            case .success(let tag): tags.insert(tag)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(tags.sorted())
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

    mutating func check(tags: [String]?, field: String = "tags") -> [String]? {
        guard let tags else { return nil }
        switch TagRules.tags(tags, field: field) {
        case .success(let value): return value
        case .failure(let error): errors.append(error); return []
        }
    }

    mutating func check(_ visibility: VisibilityField?, field: String = "visibility") -> VisibilityField? {
        guard let visibility else { return nil }
        if case .failure(let error) = visibility.validated(field: field) { errors.append(error) }
        return visibility
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
        let tags = checks.check(tags: tags)
        var valid = NewEntry(title: title, body: body, diaryID: diaryID, tags: tags, created: created, draft: draft)
        valid.visibility = checks.check(visibility)
        return checks.finish(valid)
    }
}

extension EntryReplacement: ValidatableBody {
    public func validated() -> Result<EntryReplacement, ValidationFailure> {
        var checks = FieldChecks()
        let title = checks.check(EntryRules.title(title)), body = checks.check(EntryRules.body(body))
        // Checked before `finish` is called: its `checks` is read before its argument is evaluated.
        let tags = checks.check(tags: tags)
        var valid = EntryReplacement(title: title, body: body, tags: tags, created: created, draft: draft)
        valid.visibility = checks.check(visibility)
        return checks.finish(valid)
    }
}

extension EntryPatch: ValidatableBody {
    public func validated() -> Result<EntryPatch, ValidationFailure> {
        var checks = FieldChecks()
        if title == nil && body == nil && tags == nil && visibility == nil && created == nil && draft == nil {
            checks.errors.append(FieldError(field: "title", message: "send title, body, tags, visibility, created, draft or some of them to change"))
        }
        let title = self.title.map { checks.check(EntryRules.title($0)) }
        let body = self.body.map { checks.check(EntryRules.body($0)) }
        let tags = checks.check(tags: tags)
        var valid = EntryPatch(title: title, body: body, tags: tags, created: created, draft: draft)
        valid.visibility = checks.check(visibility)
        return checks.finish(valid)
    }
}

extension NewDiary: ValidatableBody {
    public func validated() -> Result<NewDiary, ValidationFailure> {
        var checks = FieldChecks()
        let title = checks.check(EntryRules.title(title))
        var valid = NewDiary(title: title)
        valid.defaultVisibility = checks.check(defaultVisibility, field: "default_visibility")
        return checks.finish(valid)
    }
}

extension DiaryPatch: ValidatableBody {
    public func validated() -> Result<DiaryPatch, ValidationFailure> {
        var checks = FieldChecks()
        if title == nil && defaultVisibility == nil {
            checks.errors.append(FieldError(field: "title", message: "send title, default_visibility or both to change"))
        }
        var valid = DiaryPatch(title: title.map { checks.check(EntryRules.title($0)) })
        valid.defaultVisibility = checks.check(defaultVisibility, field: "default_visibility")
        return checks.finish(valid)
    }
}

extension ImportBatch: ValidatableBody {
    /// The largest id an import may bring (2^53 - 1, exact in every JSON reader). Ids keep
    /// counting up from the largest one stored, so an import near 2^63 would leave no id for
    /// the next entry written.
    public static let maxID: Int64 = (1 << 53) - 1

    /// Every entry must be one the API could have written: the field names say which entry failed.
    public func validated() -> Result<ImportBatch, ValidationFailure> {
        var checks = FieldChecks()
        let entries = entries.enumerated().map { index, imported in
            var imported = imported
            imported.entry.title = checks.check(EntryRules.title(imported.entry.title, field: "[\(index)].title"))
            imported.entry.body = checks.check(EntryRules.body(imported.entry.body, field: "[\(index)].body"))
            imported.entry.tags = checks.check(tags: imported.entry.tags, field: "[\(index)].tags") ?? []
            if !(1...Self.maxID).contains(imported.entry.id) || !(1...Self.maxID).contains(imported.entry.diaryID) {
                checks.errors.append(FieldError(field: "[\(index)].entry_id", message: "entry_id and diary_id must be integers from 1 to \(Self.maxID)"))
            }
            imported.visibility = checks.check(imported.visibility, field: "[\(index)].visibility")
            imported.entry.snippet = nil
            return imported
        }
        return checks.finish(ImportBatch(entries: entries))
    }
}

extension NoBody: ValidatableBody {
    public func validated() -> Result<NoBody, ValidationFailure> { .success(self) }
}
