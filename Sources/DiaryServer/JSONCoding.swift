import DiaryAPI
import Foundation

/// The server's JSON coders. Foundation's coders are `Sendable` once configured, so one of
/// each serves every request.
enum JSONCoding {
    private static let encoder = DiaryJSON.makeEncoder()
    private static let decoder = DiaryJSON.makeDecoder()

    /// The models read most write themselves (`JSONWritable`, the same bytes); the rest go
    /// through Foundation's encoder.
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        if let writable = value as? any JSONWritable {
            return writable.jsonBytes
        }
        do {
            return Array(try encoder.encode(value))
        } catch {
            // Our models only hold strings, numbers and dates: encoding them cannot fail.
            return Array(#"{"title":"Internal Server Error","status":500}"#.utf8)
        }
    }

    /// Decodes a request body, turning each way it can be wrong into the problem to answer.
    static func decodeBody<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(Problem) -> T {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw .badRequest("The request body is not valid UTF-8.")
        }
        guard !bytes.isEmpty else {
            throw .badRequest("The request body is empty; send a JSON object.")
        }
        guard StrictJSON.isValid(bytes) else {
            throw .badRequest("The request body is not valid JSON.")
        }
        do {
            return try decoder.decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw problem(for: error)
        } catch {
            throw .badRequest("The request body is not valid JSON.")
        }
    }

    private static func problem(for error: DecodingError) -> Problem {
        switch error {
        case .keyNotFound(let key, let context):
            let field = fieldName(context.codingPath + [key])
            return .validation(ValidationFailure([FieldError(field: field, message: "is required")]))
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            if context.codingPath.isEmpty {
                return .badRequest("The request body must be a JSON object.")
            }
            let field = fieldName(context.codingPath)
            let expected = type == String.self ? "a string" : type == Int64.self || type == Int.self ? "an integer" : "of another type"
            return .badRequest("\(field) must be \(expected).", errors: [FieldError(field: field, message: "must be \(expected)")])
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .badRequest("The request body is not valid JSON.")
            }
            let field = fieldName(context.codingPath)
            return .badRequest("\(field) has a value that cannot be read.", errors: [FieldError(field: field, message: "has a value that cannot be read")])
        @unknown default:
            return .badRequest("The request body is not valid JSON.")
        }
    }

    private static func fieldName(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
