/// Finds markup declarations (`<!DOCTYPE`, `<!ENTITY`, `<!ELEMENT`, …) in an XML body before
/// any parser sees it, so that a document type, and with it every entity of its own, is
/// refused with no work done.
///
/// Why not trust the parser: FoundationXML's `XMLParser` on Linux (libxml2) was tested on
/// this machine (docs/editors.md): it stops "billion laughs" with an error of its own
/// (libxml2's amplification limit), but it accepts an external entity (`<!ENTITY x SYSTEM
/// "file:…">`), answering success with the reference silently dropped, and it reads any
/// internal subset it is given. AtomPub entries never need a
/// document type, so none is read at all.
///
/// In well-formed XML, `<!` outside a comment and a CDATA section can only begin a
/// declaration (`<` must be escaped in text and cannot appear in attribute values), so this
/// scan skips those two and stops at any other `<!`.
public enum MarkupDeclarations {
    /// Whether `bytes` hold a markup declaration.
    public static func present(in bytes: [UInt8]) -> Bool {
        let commentOpen = Array("<!--".utf8), commentClose = Array("-->".utf8)
        let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8)
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "!") else {
                index += 1
                continue
            }
            let close: [UInt8]
            if starts(bytes, at: index, with: commentOpen) {
                close = commentClose
            } else if starts(bytes, at: index, with: cdataOpen) {
                close = cdataClose
            } else {
                return true
            }
            // An unclosed comment or CDATA section is malformed: the parser refuses it.
            guard let end = firstIndex(of: close, in: bytes, from: index + 4) else { return false }
            index = end + close.count
        }
        return false
    }

    private static func starts(_ bytes: [UInt8], at index: Int, with prefix: [UInt8]) -> Bool {
        index + prefix.count <= bytes.count && bytes[index..<index + prefix.count].elementsEqual(prefix)
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], starts(bytes, at: index, with: needle) { return index }
            index += 1
        }
        return nil
    }
}
