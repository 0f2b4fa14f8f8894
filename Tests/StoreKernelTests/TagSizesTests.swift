import DiaryAPI
import DiaryStore
import StoreKernel
import Testing

/// How a store plans a list of tags from their kept sizes.
@Suite struct TagSizesTests {
    let sizes = TagSizes(entriesByTag: ["daily": 317_183, "work": 173_456, "food": 118_250, "travel": 90_404], entries: 1_000_000)

    /// The rarest tag first, a tag on no entry before all, ties in the order asked; nothing
    /// else of the query changes.
    @Test func aListsTagsArePlannedRarestFirst() {
        let query = EntryQuery(diaryID: 3, filter: EntryFilter(query: "coffee", tags: ["daily", "food", "gone", "work"]), viewerID: 7)
        let planned = sizes.rarestFirst(query)
        #expect(planned.filter.tags == ["gone", "food", "work", "daily"])
        #expect(planned.filter.query == "coffee" && planned.diaryID == 3 && planned.viewerID == 7)
        let tied = TagSizes(entriesByTag: ["a": 5, "b": 5], entries: 10)
        #expect(tied.rarestFirst(EntryQuery(filter: EntryFilter(tags: ["b", "a"]))).filter.tags == ["b", "a"])
    }

    /// Tags together hold about the first's entries times each other's share: one tag its own
    /// size, none or a tag on no entry nothing, and no entries at all nothing.
    @Test func tagsTogetherAreEstimatedAsIfHeldIndependently() {
        #expect(sizes.together(["food"]) == 118_250)
        #expect(sizes.together(["food", "travel"]) == 10_690)
        #expect(sizes.together(["travel", "food"]) == 10_690)
        #expect(sizes.together(["food", "gone"]) == 0 && sizes.together([]) == 0)
        #expect(TagSizes(entriesByTag: ["a": 0], entries: 0).together(["a", "a"]) == 0)
    }
}
