import Foundation

/// A JSON value as Micropub bodies hold it: properties are arrays of strings, numbers and
/// objects (`{"html": …}`, `{"value": …, "alt": …}`, nested microformats), whose shape is only
/// known once read, so they are decoded as this tree by Foundation's `JSONDecoder`.
public indirect enum MicropubJSON: Codable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([MicropubJSON])
    case object([String: MicropubJSON])

    /// The JSON value of `bytes`, or nil when they are not JSON.
    public static func parse(_ bytes: [UInt8]) -> MicropubJSON? {
        try? JSONDecoder().decode(MicropubJSON.self, from: Data(bytes))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let values = try? container.decode([MicropubJSON].self) {
            self = .array(values)
        } else {
            self = .object(try container.decode([String: MicropubJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .null: try container.encodeNil()
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        }
    }

    /// Compact JSON with sorted keys, so that the same answer is the same bytes.
    public static func encode(_ object: [String: MicropubJSON]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? [UInt8](encoder.encode(object))) ?? Array("{}".utf8)
    }

    /// The text of a string value; nil for anything else.
    var text: String? {
        if case .string(let text) = self { text } else { nil }
    }
}
