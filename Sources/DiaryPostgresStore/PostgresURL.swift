import Foundation

/// Where a PostgreSQL database is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (or
/// `postgresql://…`), with `?sslmode=disable|prefer|require` (default `disable`).
///
/// The password comes from the URL, else `PGPASSWORD`, else `~/.pgpass` (`PGPASSFILE`), as
/// libpq finds it. It is never part of `description`, of an error, or of a log line.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    public var user: String
    public var host: String
    public var port: Int
    public var database: String
    public var tlsMode: TLSMode
    /// The password given in the URL, if any; `password()` also looks in the environment and `~/.pgpass`.
    var passwordInURL: String?

    /// Why a URL cannot be used; the message never holds the URL's password.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(_ text: String) throws(Invalid) {
        guard let schemeEnd = text.range(of: "://"),
              ["postgres", "postgresql"].contains(text[..<schemeEnd.lowerBound].lowercased())
        else {
            throw Invalid(description: "a PostgreSQL URL starts with postgres:// or postgresql://")
        }
        var rest = Substring(text[schemeEnd.upperBound...])
        var queryText: Substring = ""
        if let question = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var userInfo: Substring?
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        var user = ProcessInfo.processInfo.environment["PGUSER"] ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        if let userInfo {
            if let colon = userInfo.firstIndex(of: ":") {
                user = Self.decoded(userInfo[..<colon])
                passwordInURL = Self.decoded(userInfo[userInfo.index(after: colon)...])
            } else {
                user = Self.decoded(userInfo)
            }
        }
        // The host: a name, an IPv4 address, or an IPv6 address in brackets; then an optional port.
        var hostPart = rest
        var portText: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw Invalid(description: "an IPv6 host needs its closing ]") }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw Invalid(description: "unexpected text after the host")
            }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            portText = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        host = hostPart.isEmpty ? "127.0.0.1" : Self.decoded(hostPart)
        if let portText {
            guard let port = Int(portText), (1...65_535).contains(port) else {
                throw Invalid(description: "the port must be a number from 1 to 65535")
            }
            self.port = port
        } else {
            port = 5432
        }
        self.user = user
        database = path.isEmpty ? user : Self.decoded(path)
        tlsMode = .disable
        for item in queryText.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "sslmode":
                switch pair[1] {
                case "disable", "allow": tlsMode = .disable
                case "prefer": tlsMode = .prefer
                case "require", "verify-ca", "verify-full": tlsMode = .require
                default: throw Invalid(description: "sslmode must be disable, prefer or require")
                }
            case "user": user = Self.decoded(pair[1])
            case "password": passwordInURL = Self.decoded(pair[1])
            default: continue  // Options libpq knows and this store does not need (application_name, …).
            }
        }
        self.user = user
    }

    /// The same server, another database on it.
    public func withDatabase(_ name: String) -> PostgresURL {
        var url = self
        url.database = name
        return url
    }

    /// The URL without its password.
    public var description: String {
        "postgres://\(Self.encoded(user))@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(Self.encoded(database))"
    }

    /// The password to send: the URL's, else `PGPASSWORD`, else the first matching line of the
    /// password file (`PGPASSFILE`, or `~/.pgpass`, when only its owner may read it, as libpq
    /// requires); nil when there is none (trust or peer auth).
    func password(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let passwordInURL { return passwordInURL }
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let file = environment["PGPASSFILE"] ?? (environment["HOME"].map { $0 + "/.pgpass" } ?? NSHomeDirectory() + "/.pgpass")
        // As libpq: a password file others may read is not used (its passwords are not secret).
        guard let permissions = (try? FileManager.default.attributesOfItem(atPath: file))?[.posixPermissions] as? Int,
              permissions & 0o077 == 0,
              let text = try? String(contentsOfFile: file, encoding: .utf8)
        else { return nil }
        return Self.passwordFileLookup(text, host: host, port: port, database: database, user: user)
    }

    /// The password of the first line of a `.pgpass` text that matches:
    /// `hostname:port:database:username:password`, `*` matching anything, `\:` and `\\` escaped.
    static func passwordFileLookup(_ text: String, host: String, port: Int, database: String, user: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            var fields: [String] = []
            var current = ""
            var escaped = false
            for character in line {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":" && fields.count < 4 {
                    fields.append(current)
                    current = ""
                } else {
                    current.append(character)
                }
            }
            fields.append(current)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            let hostMatches = fields[0] == "*" || fields[0] == host || (fields[0] == "localhost" && ["127.0.0.1", "::1"].contains(host))
            if hostMatches && zip(fields[1..<4], wanted[1...]).allSatisfy({ $0 == "*" || $0 == $1 }) {
                return fields[4]
            }
        }
        return nil
    }

    private static func decoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@/"))) ?? text
    }
}
