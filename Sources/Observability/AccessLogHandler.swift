import Logging

/// A swift-log handler that writes each event as one logfmt line to a `BufferedLogFile`: the
/// message as it is (the access log hands over a line already in logfmt, its fields in order),
/// then any metadata, by key, as more `key=value` pairs.
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
        var line = Logfmt(event.message.description)
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        for key in fields.keys.sorted() {
            line.append(key, "\(fields[key]!)")
        }
        file.append(line.bytes)
    }
}

/// One logfmt line (`key=value key="a value"`), built field by field. A value with a space,
/// `"`, `=`, `\` or a control character, or an empty one, is quoted with Go's escapes, as logfmt
/// readers (Loki, humanlog) expect; others are written as they are.
struct Logfmt {
    private(set) var text: String

    init(_ start: String = "") {
        text = start
        text.reserveCapacity(200)
    }

    /// The line with its newline, as bytes.
    var bytes: [UInt8] { Array((text + "\n").utf8) }

    mutating func append(_ key: String, _ value: String) {
        if !text.isEmpty { text.append(" ") }
        text.append(key)
        text.append("=")
        if !value.isEmpty && value.utf8.allSatisfy(Self.isPlain) {
            text.append(value)
        } else {
            text.append(Self.quoted(value))
        }
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "\\")
    }

    /// `"..."` with `\"`, `\\`, `\n`, `\t` and `\u00XX` for other control characters.
    static func quoted(_ value: String) -> String {
        var quoted = "\""
        for scalar in value.unicodeScalars {
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
