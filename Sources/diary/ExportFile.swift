import DiaryAPI
import Foundation

/// Reading exports back.
enum ExportFile {
    /// The entries of a JSON array or of NDJSON (one entry a line), as `Entry`s or, for an
    /// import, as `ImportedEntry`s (which tell whether a line names its visibility).
    static func entries<Element: Decodable>(_: Element.Type = Entry.self, in data: Data) throws -> [Element] {
        let decoder = DiaryJSON.makeDecoder()
        let first = data.first { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        do {
            if first == UInt8(ascii: "[") {
                return try decoder.decode([Element].self, from: data)
            }
            return try data.split(separator: UInt8(ascii: "\n")).enumerated().compactMap { number, line in
                guard line.contains(where: { $0 > 32 }) else { return nil }
                do {
                    return try decoder.decode(Element.self, from: Data(line))
                } catch {
                    throw CommandFailure("line \(number + 1) is not an exported entry: \(error)")
                }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("the file is not an export (a JSON array or NDJSON of entries): \(error)")
        }
    }

    /// Each entry of the NDJSON file at `url`, in order, read a megabyte at a time: only one
    /// line is held at once, however large the export.
    static func forEachEntry(inNDJSON url: URL, _ body: (Entry) throws -> Void) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw CommandFailure("cannot read \(url.path)") }
        defer { try? handle.close() }
        let decoder = DiaryJSON.makeDecoder()
        var pending = Data(), number = 0
        func decode(_ line: Data) throws {
            number += 1
            guard line.contains(where: { $0 > 32 }) else { return }
            do {
                try body(try decoder.decode(Entry.self, from: line))
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("line \(number) of the export is not an entry: \(error)")
            }
        }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            pending.append(chunk)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try decode(pending[start..<newline])
                start = newline + 1
            }
            pending = Data(pending[start...])
        }
        if !pending.isEmpty { try decode(pending) }
    }

    /// `entries` cut into runs whose JSON stays under `maxBytes`.
    static func batches<Element: Encodable>(_ entries: [Element], maxBytes: Int) throws -> [[Element]] {
        let encoder = DiaryJSON.makeEncoder()
        var batches: [[Element]] = [], current: [Element] = [], size = 2
        for entry in entries {
            let bytes = try encoder.encode(entry).count + 1
            if !current.isEmpty && size + bytes > maxBytes {
                batches.append(current)
                current = []
                size = 2
            }
            current.append(entry)
            size += bytes
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }
}
