import DiaryAPI
import Testing
@testable import DiaryPages

@Suite struct SiteImagesTests {
    let id = "0123456789abcdef0123456789abcdef"

    @Test func theSitesImagesAreShownWithTheirSizeAndOtherRelativeImagesStayRefused() {
        let images = SiteImages(sizes: [id: (width: 2048, height: 1536)])
        let html = SafeMarkdown.html("![Eikan-do at dusk](/media/\(id))\n\n![x](/etc/passwd) ![y](/media/\(id)0)", images: images)
        #expect(html.contains(#"<img src="/media/\#(id)" alt="Eikan-do at dusk" width="2048" height="1536" loading="lazy" referrerpolicy="no-referrer">"#), "\(html)")
        #expect(!html.contains("/etc/passwd") && !html.contains("\(id)0"), "\(html)")
        #expect(html.contains(#"<span class="image-refused">x</span>"#))
    }

    @Test func anImageTheReaderMayNotSeeHasNoSizeAndFeedsWriteImagesAbsolute() {
        let unsized = SafeMarkdown.html("![a](/media/\(id))")
        #expect(unsized.contains(#"<img src="/media/\#(id)" alt="a" loading="lazy""#), "\(unsized)")
        let absolute = SafeMarkdown.html("![a](/media/\(id))", images: SiteImages(base: "https://diary.example"))
        #expect(absolute.contains(#"src="https://diary.example/media/\#(id)""#), "\(absolute)")
    }
}
