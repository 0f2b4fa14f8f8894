import DiaryAPI

/// Turns batches of entries into the bytes of an export, one chunk per batch: NDJSON (one
/// entry a line) or one JSON array. Pulled by one transport thread at a time.
final class ExportWriter: @unchecked Sendable {
    let format: ExportFormat
    private var started = false
    private var finished = false

    init(format: ExportFormat) {
        self.format = format
    }

    /// The bytes of `batch`, the closing bytes when it is nil (the end), then nil.
    func chunk(_ batch: [Entry]?) -> [UInt8]? {
        guard !finished else { return nil }
        guard let batch else {
            finished = true
            switch format {
            case .ndjson: return started ? nil : []
            case .json: return Array((started ? "\n]\n" : "[]\n").utf8)
            }
        }
        var bytes: [UInt8] = []
        for entry in batch {
            switch format {
            case .ndjson:
                bytes += JSONCoding.encode(entry)
                bytes.append(UInt8(ascii: "\n"))
            case .json:
                bytes += Array((started ? ",\n" : "[\n").utf8)
                bytes += JSONCoding.encode(entry)
            }
            started = true
        }
        return bytes
    }
}
