import DiaryAPI
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads an AtomPub entry (RFC 5023 §9.2) into an `AtomEntryDocument`: libxml2's parser
/// through FoundationXML's `XMLParser` (namespaces on, external entities off), after
/// `MarkupDeclarations` has refused any document type. Elements it does not know are
/// skipped, as RFC 4287 lets a reader do; the ones it knows must be as Atom says.
public enum AtomEntryParser {
    /// Why a body is not an entry this server takes: sent as a 400 problem's detail.
    public struct Failure: Error, Sendable, Equatable {
        public let message: String
    }

    static let atom = "http://www.w3.org/2005/Atom"
    static let app = "http://www.w3.org/2007/app"

    /// `content` types kept as the body's text: Markdown as Hatena's Markdown mode sends it,
    /// and plain or HTML text (an entry body is Markdown, which may hold HTML, made safe when shown).
    static let textualContentTypes: Set<String> = ["text", "text/x-markdown", "text/markdown", "text/plain", "html"]

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> AtomEntryDocument {
        guard !MarkupDeclarations.present(in: bytes) else {
            throw Failure(message: "The entry holds a document type or another markup declaration (<!DOCTYPE, <!ENTITY); none is read.")
        }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let reader = EntryReader()
        parser.delegate = reader
        // `parse()` alone is not trusted: on Linux it answered true for a mismatched end tag
        // (with `parserError` set) and for a body cut after its first tag (with none), tried on
        // this machine. So any error reported, or a root never closed, is malformed XML.
        let parsed = parser.parse()
        if let failure = reader.failure { throw failure }
        guard parsed, parser.parserError == nil, !reader.sawError, reader.closedRoot else {
            throw Failure(message: "The body is not well-formed XML (line \(parser.lineNumber), column \(parser.columnNumber)).")
        }
        return reader.document
    }
}

/// The parser's delegate: the open elements as a stack, the text of the element being read.
private final class EntryReader: NSObject, XMLParserDelegate {
    var document = AtomEntryDocument()
    var failure: AtomEntryParser.Failure?
    /// Whether libxml2 reported an error, which `parse()` may not say.
    var sawError = false
    /// Whether the root element was closed: a body cut short never closes it.
    var closedRoot = false
    /// (namespace, local name) of each open element, the root first.
    private var open: [(String, String)] = []
    /// An entry needs three levels (`app:control/app:draft` under the root); past this many,
    /// a body is refused before its depth costs anything.
    static let maximumDepth = 32
    private var text = ""

    private func fail(_ message: String, _ parser: XMLParser) {
        if failure == nil { failure = AtomEntryParser.Failure(message: message) }
        parser.abortParsing()
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
    ) {
        let element = (namespaceURI ?? "", name)
        if open.isEmpty {
            guard element == (AtomEntryParser.atom, "entry") else {
                return fail("The document must be an atom:entry in the namespace \(AtomEntryParser.atom).", parser)
            }
        } else if open.count == 1, element == (AtomEntryParser.atom, "category") {
            guard let term = attributes["term"] else { return fail("An atom:category needs a term.", parser) }
            document.tags.append(term)
        } else if open.count == 1, element == (AtomEntryParser.atom, "content") {
            let type = attributes["type"] ?? "text"
            guard AtomEntryParser.textualContentTypes.contains(type.lowercased()) else {
                return fail("Content of type \(type.prefix(60)) is not taken: send Markdown as type=\"text/x-markdown\".", parser)
            }
            if attributes["src"] != nil { return fail("Content by reference (src) is not taken: send the text.", parser) }
        } else if open.count == 2, open[1] == (AtomEntryParser.atom, "content") {
            return fail("Content must be text, not elements: send Markdown as type=\"text/x-markdown\".", parser)
        }
        guard open.count < Self.maximumDepth else {
            return fail("The entry nests elements more than \(Self.maximumDepth) deep.", parser)
        }
        open.append(element)
        text = ""
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        sawError = true
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard let string = String(data: block, encoding: .utf8) else { return fail("A CDATA section is not UTF-8.", parser) }
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        // Only the first three levels hold fields.
        let path = open.count <= 3 ? open.map { "\($0.0) \($0.1)" } : []
        open.removeLast()
        if open.isEmpty { closedRoot = true }
        let atom = AtomEntryParser.atom, app = AtomEntryParser.app
        switch path {
        case ["\(atom) entry", "\(atom) title"]: document.title = text
        case ["\(atom) entry", "\(atom) content"]: document.body = text
        case ["\(atom) entry", "\(atom) updated"]:
            guard let date = RFC3339.date(from: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                return fail("atom:updated must be an RFC 3339 date, such as 2026-11-22T04:30:00Z.", parser)
            }
            document.date = date
        case ["\(atom) entry", "\(app) control", "\(app) draft"]:
            switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
            case "yes": document.draft = true
            case "no": document.draft = false
            default: return fail("app:draft must be yes or no.", parser)
            }
        default: break
        }
        text = ""
    }
}
