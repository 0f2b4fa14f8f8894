/// A body that can also be posted as plain text (`text/plain`, `text/markdown`).
public protocol PlainTextBody {
    init(plainText: String)
}

extension NewEntry: PlainTextBody {
    /// The first line is the title (without a leading `#`), the rest the body.
    public init(plainText: String) {
        let parts = EntryText.parse(plainText)
        self.init(title: parts.title, body: parts.body)
    }
}
