import DiaryAPI
import DiaryPages
import HTTPCore
import HTTPTypes

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}

/// The headers of the reading pages and feeds: what every API answer carries, and a strict
/// Content-Security-Policy. The pages hold no script and allow none; styles come only from the
/// site's own stylesheet; pictures in entries from any http or https address; no page may be
/// framed; a form may only go back to the site.
enum PageHeaders {
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src http: https:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    static let html = "text/html; charset=utf-8"

    static func document(contentType: String, cacheable: Bool) -> HTTPFields {
        var headers = HTTPFields.standard(contentType: contentType, cacheable: cacheable)
        headers.add(.contentSecurityPolicy, contentSecurityPolicy)
        // A link out of an unlisted entry tells the other site nothing but this site's name.
        headers.add(.referrerPolicy, "strict-origin-when-cross-origin")
        headers.add(.xFrameOptions, "DENY")
        // Micropub discovery by header, for apps that read no HTML (issue 23).
        if contentType == html { headers.add(.link, "<\(SitePaths.micropub)>; rel=\"micropub\"") }
        return headers
    }
}
