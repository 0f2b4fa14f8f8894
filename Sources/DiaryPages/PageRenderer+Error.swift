extension PageRenderer {
    /// An error as a page: the status, a title and what happened, and the way back.
    public func error(status: Int, title: String, detail: String) -> [UInt8] {
        var frame = Frame(title: title)
        frame.noindex = true
        return document(frame) { out in
            out += "<section class=\"error-page\" id=\"error\">\n<p class=\"error-status\">Error \(status)</p>\n<h1>"
            HTMLEscaping.append(title, to: &out)
            out += "</h1>\n<p class=\"error-detail\">"
            HTMLEscaping.append(detail, to: &out)
            out += "</p>\n<p><a href=\"/\">Read the newest entries</a></p>\n</section>\n"
        }
    }
}
