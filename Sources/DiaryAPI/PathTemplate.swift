import ByteEncodings

/// A path such as `/api/entries/{entry_id}`: literal segments and named parameters.
public struct PathTemplate: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    public let segments: [Segment]

    public init(_ template: String) {
        segments = template.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The template as written, `{name}` marks included; also its OpenAPI path.
    public var description: String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): "{\(name)}"
            }
        }.joined(separator: "/")
    }

    /// The parameters when `pathSegments` (already percent-decoded) fit this template.
    public func match(_ pathSegments: [String]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, pathSegments) {
            switch segment {
            case .literal(let text): guard text == value else { return nil }
            case .parameter(let name): parameters[name] = value
            }
        }
        return parameters
    }

    /// The path with `parameters` filled in and percent-encoded.
    public func render(_ parameters: [String: String]) -> String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): PercentEncoding.encode(parameters[name] ?? "")
            }
        }.joined(separator: "/")
    }
}
