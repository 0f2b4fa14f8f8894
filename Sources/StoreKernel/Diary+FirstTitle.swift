import DiaryAPI

extension Diary {
    /// The title of the diary a new user gets, and of the one an entry or an import creates
    /// when its author has none.
    public static func firstTitle(of name: String) -> String {
        "\(name)'s diary"
    }
}
