import ByteEncodings
import Foundation

/// JSON written straight into bytes: for the models the server sends most, byte for byte
/// what `DiaryJSON.makeEncoder()` makes of them (sorted keys, `/` left as is, the same string
/// escapes, RFC 3339 dates), without Foundation's intermediate values. `JSONBytesTests` holds
/// the two to the same output.
public struct JSONBytes {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func byte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// `"name":`, with a comma first unless it opens the object.
    mutating func key(_ name: some CodingKey, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        string(name.stringValue)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func integer(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func date(_ value: Date) {
        string(RFC3339.string(from: value))
    }

    mutating func null() {
        raw("null")
    }

    mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// A string, escaped as Foundation's encoder does: `"` and `\`, the named escapes
    /// `\b \t \n \f \r`, other control characters as `\u00xx`; everything else as is.
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = value.utf8
        var run = utf8.startIndex
        var index = run
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                utf8.formIndex(after: &index)
                continue
            }
            bytes.append(contentsOf: utf8[run..<index])
            escape(byte)
            utf8.formIndex(after: &index)
            run = index
        }
        bytes.append(contentsOf: utf8[run..<index])
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x08: raw("\\b")
        case 0x09: raw("\\t")
        case 0x0A: raw("\\n")
        case 0x0C: raw("\\f")
        case 0x0D: raw("\\r")
        default:
            raw("\\u00")
            bytes.append(Hex.lowercaseDigits[Int(byte >> 4)])
            bytes.append(Hex.lowercaseDigits[Int(byte & 0xF)])
        }
    }

    public mutating func array<T>(_ elements: [T], _ element: (inout JSONBytes, T) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            element(&self, value)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

/// A model that writes its own JSON (see `JSONBytes`).
public protocol JSONWritable {
    func write(to json: inout JSONBytes)
}

extension JSONWritable {
    public var jsonBytes: [UInt8] {
        var json = JSONBytes()
        write(to: &json)
        return json.bytes
    }
}

// MARK: - Models, keys in sorted order

extension Entry: JSONWritable {
    public func write(to json: inout JSONBytes) {
        json.byte(UInt8(ascii: "{"))
        json.key(CodingKeys.author, first: true); json.string(author)
        json.key(CodingKeys.body); json.string(body)
        json.key(CodingKeys.created); json.date(created)
        json.key(CodingKeys.diaryID); json.integer(diaryID)
        if draft {
            json.key(CodingKeys.draft); json.bool(true)
        }
        json.key(CodingKeys.id); json.integer(id)
        if scheduled {
            json.key(CodingKeys.scheduled); json.bool(true)
        }
        if let snippet {
            json.key(CodingKeys.snippet); json.string(snippet)
        }
        json.key(CodingKeys.tags); json.array(tags) { json, tag in json.string(tag) }
        json.key(CodingKeys.title); json.string(title)
        json.key(CodingKeys.updated); json.date(updated)
        json.key(CodingKeys.visibility); json.string(visibility.rawValue)
        json.byte(UInt8(ascii: "}"))
    }
}

extension EntryPage: JSONWritable {
    public func write(to json: inout JSONBytes) {
        json.byte(UInt8(ascii: "{"))
        json.key(CodingKeys.entries, first: true); json.array(entries) { json, entry in entry.write(to: &json) }
        json.key(CodingKeys.nextCursor)
        if let nextCursor { json.string(nextCursor) } else { json.null() }
        json.key(CodingKeys.nextPage)
        if let nextPage { json.integer(nextPage) } else { json.null() }
        json.key(CodingKeys.page); json.integer(page)
        json.key(CodingKeys.perPage); json.integer(perPage)
        json.key(CodingKeys.prevPage)
        if let prevPage { json.integer(prevPage) } else { json.null() }
        json.key(CodingKeys.total); json.integer(total)
        if totalIsEstimate { json.key(CodingKeys.totalIsEstimate); json.bool(true) }
        json.byte(UInt8(ascii: "}"))
    }
}

extension Diary: JSONWritable {
    public func write(to json: inout JSONBytes) {
        json.byte(UInt8(ascii: "{"))
        json.key(CodingKeys.created, first: true); json.date(created)
        json.key(CodingKeys.defaultVisibility); json.string(defaultVisibility.rawValue)
        json.key(CodingKeys.id); json.integer(id)
        json.key(CodingKeys.entryCount); json.integer(entryCount)
        json.key(CodingKeys.owner); json.string(owner)
        json.key(CodingKeys.title); json.string(title)
        json.key(CodingKeys.updated); json.date(updated)
        json.byte(UInt8(ascii: "}"))
    }
}

extension DiaryList: JSONWritable {
    public func write(to json: inout JSONBytes) {
        json.byte(UInt8(ascii: "{"))
        json.key(CodingKeys.diaries, first: true); json.array(diaries) { json, diary in diary.write(to: &json) }
        json.byte(UInt8(ascii: "}"))
    }
}
