import Foundation

/// Entries written to attack a page, and a reader of the HTML that comes out that checks it
/// holds nothing that runs: the battery the renderer must pass.
enum HostileMarkup {
    static let bodies: [String] = [
        // Script in any case, alone, inline, nested, split
        "<script>alert(1)</script>", "<SCRIPT>alert(1)</SCRIPT>", "<ScRiPt src=//evil.example/x.js></ScRiPt>",
        "text <script>alert(1)</script> more", "<<script>script>alert(1)<</script>/script>", "\"><script>alert(1)</script>",
        "<svg><script>alert(1)</script></svg>", "> quote <script>x</script>", "*<script>*", "`<script>`",
        "<!-- --><script>alert(1)</script>", "<!-- <script>alert(1)</script> -->",
        // Event handlers
        "<img src=x onerror=alert(1)>", "hello <img src=x onerror=alert(1)> world", "<p onclick=x>para</p>",
        "text <p onclick=x>para</p>", "<body onload=alert(1)>", "**<img src=x onerror=alert(1)>**",
        "[<img src=x onerror=alert(1)>](http://ok.example)", "<a href=\"http://ok.example\" onmouseover=\"alert(1)\">x</a>",
        // URLs: javascript:, data:, vbscript:, in every disguise
        "[a](javascript:alert(1))", "[a](JaVaScRiPt:alert(1))", "[a]( javascript:alert(1))", "[a](\u{01}javascript:alert(1))",
        "[a](\u{0B}javascript:alert(1))", "[a](&#106;avascript:alert(1))", "[a](&#x6A;avascript:alert(1))", "[a](&#106avascript:alert(1))",
        "[a](&#0000106;avascript:alert(1))", "[a](java&#x0A;script:alert(1))", "[a](java&#x09;script:alert(1))", "[a](java&#13;script:alert(1))",
        "[a](java&Tab;script:alert(1))", "[a](java&NewLine;script:alert(1))", "[x](javascript&colon;alert(1))", "[x](javascript&#58;alert(1))",
        "[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "[a](DATA:text/html,<script>alert(1)</script>)",
        "[a](vbscript:msgbox(1))", "[a](java\tscript:alert(1))",
        "[a][r]\n\n[r]: javascript:alert(1)", "[a][R]\n\n[r]: data:text/html,x",
        "<a href=\"javascript:alert(1)\">x</a>", "<a href=javascript:alert(1)>x</a>",
        "![i](javascript:alert(1))", "![i](data:image/svg+xml,<svg onload=alert(1)>)", "![i](data:image/png;base64,AAAA)",
        "![i](&#106;avascript:alert(1))", "![i](//evil.example/x.png)", "![i](/relative.png)",
        "- [l](data:text/html,xx)\n- ![i](data:image/png;base64,AAA)",
        // Quotes breaking out of attributes and link titles
        "[a](http://x\" onclick=\"alert(1))", "[a](http://x' onclick='alert(1))", "[a](http://x \"title\" onmouseover=alert(1))",
        "[a](http://x \"t\\\" onmouseover=\\\"alert(1)\")", "![x\" onerror=\"alert(1)](http://a.example/b.png)",
        "![x' onerror='alert(1)](http://a.example/b.png)", "![x\"><script>alert(1)</script>](http://a.example/b.png)",
        "```x\" onmouseover=\"alert(1)\ncode\n```", "```x\"><script>alert(1)</script>\ncode\n```",
        "[a](http://x\"><script>alert(1)</script>)",
        // Text Ink copies untouched between & and ;
        "&<script>alert(1)</script>;", "&<img src=x onerror=alert(1)>;", "&\"><svg onload=alert(1)>;",
        // Elements that must never appear
        "# </title><script>alert(1)</script>", "<iframe src=\"http://evil.example\"></iframe>", "<IFRAME SRC=javascript:alert(1)>",
        "<style>body{display:none}</style>", "<svg onload=alert(1)>", "<math><mtext><script>alert(1)</script></mtext></math>",
        "<div style=\"position:fixed;inset:0\">x</div>", "<object data=x>", "<embed src=x>", "<form action=//evil><input name=q></form>",
        "<meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">", "<base href=//evil.example/>",
        "<link rel=stylesheet href=//evil.example/x.css>", "<template><script>alert(1)</script></template>",
        "| <b>x</b> | [l](javascript:x) |\n|---|---|\n| <img src=x onerror=y> | b |",
        // Closing the page's own elements
        "</div></article></main><script>alert(1)</script>", "</p></li></ul></blockquote>end", "&</div></main>;",
        "&</em></em></em>;",
    ]

    /// Elements the renderer may write, and nothing else.
    static let allowedElements: Set<String> = [
        "p", "h2", "h3", "h4", "h5", "h6", "em", "strong", "s", "del", "code", "pre", "blockquote", "ul", "ol", "li",
        "a", "img", "br", "hr", "table", "thead", "tbody", "tr", "th", "td", "span", "mark",
    ]
    static let allowedAttributes: Set<String> = ["href", "src", "alt", "title", "rel", "class", "start", "align", "loading", "referrerpolicy"]

    /// What is wrong with `html` as markup an author controls; empty when nothing.
    static func problems(in html: String) -> [String] {
        var problems: [String] = []
        let lowered = html.lowercased()
        for needle in ["<script", "<iframe", "<style", "<svg", "<object", "<embed", "<form", "<meta", "<base", "<link", "<body", "<div", "<math", "<template", "</div", "</main", "</article"]
        where lowered.contains(needle) {
            problems.append("holds \(needle)")
        }
        // Every `<` in the output must open or close an allowed element with allowed, double-quoted attributes.
        let tag = try! NSRegularExpression(pattern: #"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[a-z]+="[^"<>]*")*)\s*>"#)
        var index = html.startIndex
        while let lt = html[index...].firstIndex(of: "<") {
            let rest = String(html[lt...])
            guard let match = tag.firstMatch(in: rest, range: NSRange(rest.startIndex..., in: rest)), match.range.location == 0 else {
                problems.append("a < that is no clean tag: \(rest.prefix(40))")
                index = html.index(after: lt)
                continue
            }
            let name = (rest as NSString).substring(with: match.range(at: 2)).lowercased()
            if !allowedElements.contains(name) { problems.append("element \(name)") }
            let attributes = (rest as NSString).substring(with: match.range(at: 3))
            let pair = try! NSRegularExpression(pattern: #"([a-z]+)="([^"]*)""#)
            for found in pair.matches(in: attributes, range: NSRange(attributes.startIndex..., in: attributes)) {
                let attribute = (attributes as NSString).substring(with: found.range(at: 1))
                let value = (attributes as NSString).substring(with: found.range(at: 2))
                if !allowedAttributes.contains(attribute) || attribute.hasPrefix("on") { problems.append("attribute \(attribute)") }
                if attribute == "href" || attribute == "src" {
                    // The value as a browser reads it: the five escapes the renderer writes, and no other reference.
                    var rest = value
                    for escape in ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"] { rest = rest.replacingOccurrences(of: escape, with: "") }
                    if rest.contains("&") { problems.append("a reference left in \(value)") }
                    var url = value.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                        .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                        .replacingOccurrences(of: "&amp;", with: "&")
                    url = String(url.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }.map(Character.init))
                    url = String(url.drop { $0.unicodeScalars.first!.value <= 0x20 }).lowercased()
                    for scheme in ["javascript:", "data:", "vbscript:"] where url.hasPrefix(scheme) {
                        problems.append("\(attribute)=\(value)")
                    }
                    if attribute == "src", !(url.hasPrefix("http://") || url.hasPrefix("https://")) { problems.append("src=\(value)") }
                    if attribute == "href", url.contains(":"), !(url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("mailto:")),
                       !url.prefix(while: { $0 != ":" }).contains(where: { "/?#".contains($0) }) {
                        problems.append("href=\(value)")
                    }
                }
            }
            let end = Range(match.range, in: rest)!.upperBound
            index = html.index(lt, offsetBy: rest.distance(from: rest.startIndex, to: end))
        }
        return problems
    }
}
