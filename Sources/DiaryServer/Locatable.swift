import DiaryAPI

/// A response that names where the created resource lives, for `Location`.
public protocol Locatable {
    var location: String { get }
}

extension Entry: Locatable {
    public var location: String { GetEntry(entryID: id).renderedPath }
}

extension Diary: Locatable {
    public var location: String { GetDiary(diaryID: id).renderedPath }
}
