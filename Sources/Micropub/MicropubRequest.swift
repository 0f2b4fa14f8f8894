import Foundation

/// One value of a Micropub property, as form-encoded, multipart or JSON requests send it.
public enum MicropubValue: Sendable, Equatable {
    case text(String)
    /// `{"html": …}` content.
    case html(String)
    /// `{"value": URL, "alt": …}`: a photo with its description.
    case described(url: String, alt: String?)
    /// A file part of a multipart request.
    case file(bytes: [UInt8], contentType: String)
    /// A nested microformats object (a check-in's h-card): kept nowhere, and never an error.
    case object

    /// The text of a plain value.
    public var text: String? {
        if case .text(let text) = self { text } else { nil }
    }
}

/// Property names and their values, in the order sent.
public typealias MicropubProperties = [String: [MicropubValue]]

/// What an update asks (§3.3): values to replace, values to add, and properties or values to delete.
public struct MicropubUpdate: Sendable, Equatable {
    public var replace: MicropubProperties = [:]
    public var add: MicropubProperties = [:]
    /// Properties removed whole.
    public var deleteProperties: [String] = []
    /// Values removed from a property.
    public var deleteValues: MicropubProperties = [:]
}

/// A request to the Micropub endpoint, read from its body: what to do and to which post.
public enum MicropubRequest: Sendable, Equatable {
    /// An `h-entry` to create, with its properties and `mp-` commands.
    case create(MicropubProperties)
    case update(url: String, MicropubUpdate)
    case delete(url: String)
    case undelete(url: String)

    /// A form-encoded or multipart request: `h=entry` and properties (`category[]` is
    /// `category`), or `action=delete|undelete` with `url`. The token field is the caller's
    /// concern, not a property: it is never kept.
    public static func parse(form fields: [(name: String, value: MicropubValue)]) throws(MicropubError) -> MicropubRequest {
        var properties: MicropubProperties = [:]
        for field in fields where field.name != "access_token" {
            var name = field.name
            if name.hasSuffix("[]") { name.removeLast(2) }
            properties[name, default: []].append(field.value)
        }
        if let action = properties.removeValue(forKey: "action")?.first?.text {
            let url = properties["url"]?.first?.text
            return try command(action, url: url, update: nil)
        }
        guard let type = properties.removeValue(forKey: "h")?.first?.text else {
            throw .invalidRequest("Send h=entry to create a post, or action=delete|undelete with url.")
        }
        guard type == "entry" else {
            throw .invalidRequest("This server creates h=entry posts only, not h=\(type.prefix(40)).")
        }
        return .create(properties)
    }

    /// A JSON request: `{"type": ["h-entry"], "properties": {…}}`, or `{"action": …, "url": …}`
    /// with `replace`, `add` and `delete` for an update.
    public static func parse(json bytes: [UInt8]) throws(MicropubError) -> MicropubRequest {
        guard case .object(let object)? = MicropubJSON.parse(bytes) else {
            throw .invalidRequest("The body is not a JSON object.")
        }
        if let action = object["action"] {
            guard let action = action.text else { throw .invalidRequest("action must be a string.") }
            guard let url = object["url"]?.text else { throw .invalidRequest("\(action.prefix(20)) needs the post's url as a string.") }
            return try command(action, url: url, update: try update(object))
        }
        guard case .array(let types)? = object["type"], types.contains(.string("h-entry")) else {
            throw .invalidRequest("Send \"type\": [\"h-entry\"] to create a post; this server creates h-entry posts only.")
        }
        guard case .object(let raw)? = object["properties"] else {
            throw .invalidRequest("A JSON post needs \"properties\" as an object.")
        }
        return .create(try properties(raw, field: "properties"))
    }

    private static func command(_ action: String, url: String?, update: MicropubUpdate?) throws(MicropubError) -> MicropubRequest {
        guard let url, !url.isEmpty else { throw .invalidRequest("\(action.prefix(20)) needs the post's url.") }
        switch action {
        case "delete": return .delete(url: url)
        case "undelete": return .undelete(url: url)
        case "update":
            guard let update else { throw .invalidRequest("Updates are sent as JSON (Content-Type: application/json).") }
            return .update(url: url, update)
        default: throw .invalidRequest("Unknown action \(action.prefix(40)); this server knows update, delete and undelete.")
        }
    }

    /// The operations of an update, each checked for its shape (micropub.rocks 405: `replace`
    /// that is not an object of arrays is refused).
    private static func update(_ object: [String: MicropubJSON]) throws(MicropubError) -> MicropubUpdate {
        var update = MicropubUpdate()
        for operation in ["replace", "add"] {
            guard let value = object[operation] else { continue }
            guard case .object(let raw) = value else {
                throw .invalidRequest("\(operation) must be an object of properties, each an array of values.")
            }
            let parsed = try properties(raw, field: operation)
            if operation == "replace" { update.replace = parsed } else { update.add = parsed }
        }
        switch object["delete"] {
        case nil: break
        case .array(let names)?:
            for name in names {
                guard let name = name.text else { throw .invalidRequest("delete must list property names as strings.") }
                update.deleteProperties.append(name)
            }
        case .object(let raw)?: update.deleteValues = try properties(raw, field: "delete")
        default: throw .invalidRequest("delete must be an array of property names or an object of values to remove.")
        }
        return update
    }

    private static func properties(_ raw: [String: MicropubJSON], field: String) throws(MicropubError) -> MicropubProperties {
        var properties: MicropubProperties = [:]
        for (name, value) in raw {
            guard case .array(let values) = value else {
                throw .invalidRequest("\(field).\(name.prefix(40)) must be an array of values.")
            }
            var parsed: [MicropubValue] = []
            for value in values {
                parsed.append(try Self.value(value, name: name))
            }
            properties[name] = parsed
        }
        return properties
    }

    private static func value(_ json: MicropubJSON, name: String) throws(MicropubError) -> MicropubValue {
        switch json {
        case .string(let text): return .text(text)
        case .number(let number): return .text(number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number))
        case .bool(let flag): return .text(flag ? "true" : "false")
        case .object(let object):
            if case .string(let html)? = object["html"] { return .html(html) }
            if case .string(let url)? = object["value"] { return .described(url: url, alt: object["alt"]?.text) }
            if object["type"] != nil { return .object }
            throw .invalidRequest("A value of \(name.prefix(40)) is an object this server does not read.")
        case .null, .array: throw .invalidRequest("A value of \(name.prefix(40)) is neither a string nor an object.")
        }
    }
}
