import Logging

/// A swift-log handler that writes each event as one logfmt line (`key=value ...`) to a
/// `BufferedLogFile`: the access log's fields first, in the order `AccessLog.fields` gives,
/// then any other metadata by key. Values with a space, `"`, `=` or a control character are
/// quoted with Go's escapes, as logfmt readers (Loki, humanlog) expect.
struct AccessLogHandler: LogHandler {
    let file: BufferedLogFile
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        var line = ""
        line.reserveCapacity(200)
        for key in AccessLog.fields {
            if let value = fields.removeValue(forKey: key) { Self.append(key, value, to: &line) }
        }
        for key in fields.keys.sorted() {
            Self.append(key, fields[key]!, to: &line)
        }
        line.append("\n")
        file.append(Array(line.utf8))
    }

    private static func append(_ key: String, _ value: Logger.Metadata.Value, to line: inout String) {
        if !line.isEmpty { line.append(" ") }
        line.append(key)
        line.append("=")
        let text = "\(value)"
        if !text.isEmpty && text.utf8.allSatisfy({ $0 > 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "=") && $0 != 0x7F }) {
            line.append(text)
        } else {
            line.append(quoted(text))
        }
    }

    /// `"..."` with `\"`, `\\`, `\n`, `\t` and `\u00XX` for other control characters.
    static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted.append("\\\"")
            case "\\": quoted.append("\\\\")
            case "\n": quoted.append("\\n")
            case "\t": quoted.append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                quoted.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
