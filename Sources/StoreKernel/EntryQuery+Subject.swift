import DiaryStore

extension EntryQuery {
    /// What a failure to list is about, in both engines' errors and logs.
    public var subject: StoreError.Subject {
        .operation(diaryID.map { "entries of diary \($0)" } ?? "entries")
    }
}
