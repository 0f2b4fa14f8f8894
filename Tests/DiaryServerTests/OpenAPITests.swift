import DiaryAPI
import DiaryServer
import Foundation
import HTTPCore
import HTTPTypes
import Testing

/// Keeps `api/openapi.json` in step with the code: every endpoint type of the contract is in
/// the document with its method, path, success status and security, and every operation of
/// the document is routed by the application.
@Suite struct OpenAPITests {
    /// The repository's root, three levels up from this file (`Tests/DiaryServerTests/OpenAPITests.swift`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let documentURL = root.appendingPathComponent("api/openapi.json")

    static let methods = ["get", "head", "post", "put", "patch", "delete", "options"]

    static func loadDocument() throws -> [String: Any] {
        let data = try Data(contentsOf: documentURL)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "api/openapi.json is not a JSON object")
    }

    static func paths(_ document: [String: Any]) throws -> [String: [String: Any]] {
        let paths = try #require(document["paths"] as? [String: Any], "the document has no paths")
        return paths.compactMapValues { $0 as? [String: Any] }
    }

    /// A `$ref` within the document (`#/components/parameters/EntryID`), resolved; other values as they are.
    static func resolve(_ value: Any, in document: [String: Any]) -> Any? {
        guard let object = value as? [String: Any], let reference = object["$ref"] as? String else { return value }
        guard reference.hasPrefix("#/") else { return nil }
        var node: Any = document
        for part in reference.dropFirst(2).split(separator: "/") {
            let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = (node as? [String: Any])?[key] else { return nil }
            node = next
        }
        return resolve(node, in: document)
    }

    // MARK: - The document

    @Test func isAnOpenAPI31DocumentWithBearerAuth() throws {
        let document = try Self.loadDocument()
        #expect(document["openapi"] as? String == "3.1.0")
        let info = try #require(document["info"] as? [String: Any])
        #expect(info["title"] is String && info["version"] is String)
        let components = try #require(document["components"] as? [String: Any])
        let schemes = try #require(components["securitySchemes"] as? [String: Any])
        let bearer = try #require(schemes["bearerAuth"] as? [String: Any], "no bearerAuth security scheme")
        #expect(bearer["type"] as? String == "http")
        #expect((bearer["scheme"] as? String)?.lowercased() == "bearer")
        let schemas = try #require(components["schemas"] as? [String: Any])
        for name in ["Entry", "EntryPage", "Diary", "DiaryList", "User", "HealthStatus", "Problem", "FieldError"] {
            #expect(schemas[name] != nil, "no schema \(name)")
        }
    }

    @Test func everyReferenceResolvesAndOperationIDsAreUnique() throws {
        let document = try Self.loadDocument()
        var references: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let reference = object["$ref"] as? String { references.append(reference) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(document)
        #expect(!references.isEmpty)
        for reference in Set(references) {
            #expect(Self.resolve(["$ref": reference], in: document) != nil, "\(reference) does not resolve")
        }
        var operationIDs: [String] = []
        for (_, item) in try Self.paths(document) {
            for method in Self.methods {
                guard let operation = item[method] as? [String: Any] else { continue }
                if let id = operation["operationId"] as? String { operationIDs.append(id) }
            }
        }
        #expect(operationIDs.count == Set(operationIDs).count, "duplicate operationIds")
    }

    // MARK: - Contract → document

    @Test func everyEndpointTypeIsInTheDocument() throws {
        let document = try Self.loadDocument()
        let paths = try Self.paths(document)
        for endpoint in APIEndpoints.all {
            let name = "\(endpoint)"
            let path = endpoint.path.description
            let method = endpoint.method.rawValue.lowercased()
            guard let item = paths[path] else {
                Issue.record("\(name): the document has no path \(path)")
                continue
            }
            guard let operation = item[method] as? [String: Any] else {
                Issue.record("\(name): the document has no \(method.uppercased()) \(path)")
                continue
            }
            let responses = operation["responses"] as? [String: Any] ?? [:]
            #expect(responses[String(endpoint.successStatus)] != nil,
                    "\(name): \(method.uppercased()) \(path) does not document its success status \(endpoint.successStatus)")

            let security = (operation["security"] ?? document["security"]) as? [[String: [String]]]
            switch endpoint.access {
            case .token:
                #expect(security == [["bearerAuth": []]], "\(name): \(method.uppercased()) \(path) needs security [bearerAuth]")
            case .open:
                // Anyone; a token, when sent, is checked and shows the caller's own entries too.
                #expect(security == [[:], ["bearerAuth": []]],
                        "\(name): \(method.uppercased()) \(path) is open with an optional token: security [{}, {bearerAuth}]")
            }

            // Every {name} of the template is declared as a required path parameter.
            let declared = ((item["parameters"] as? [Any] ?? []) + (operation["parameters"] as? [Any] ?? []))
                .compactMap { Self.resolve($0, in: document) as? [String: Any] }
                .filter { $0["in"] as? String == "path" && $0["required"] as? Bool == true }
                .compactMap { $0["name"] as? String }
            for segment in endpoint.path.segments {
                if case .parameter(let parameter) = segment {
                    #expect(declared.contains(parameter), "\(name): path parameter \(parameter) is not declared")
                }
            }
        }
    }

    // MARK: - Document → router

    @Test func everyOperationInTheDocumentIsRouted() throws {
        let document = try Self.loadDocument()
        let app = try TestApplication().app

        var operations = 0
        for (template, item) in try Self.paths(document).sorted(by: { $0.key < $1.key }) {
            let target = template.replacingOccurrences(of: #"\{[^/}]+\}"#, with: "1", options: .regularExpression)
            for method in Self.methods where item[method] != nil {
                operations += 1
                let response = app.respond(to: Request(method: HTTPRequest.Method(method.uppercased())!, target: target))
                let detail = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["detail"] as? String
                // A 404 is routed only when its detail says so: one without a detail proves nothing either way.
                #expect(response.status != 404 || detail != nil, "\(method.uppercased()) \(template): 404 without a problem detail")
                let unrouted = response.status == 405 || (response.status == 404 && detail?.hasPrefix("There is no resource") == true)
                #expect(!unrouted, "\(method.uppercased()) \(template) is in the document but not routed (\(response.status) \(detail ?? ""))")
            }
        }
        #expect(operations >= APIEndpoints.all.count)
    }

    @Test func theServedDocumentIsTheFile() throws {
        let t = try TestApplication()
        let app = t.app
        let response = app.respond(to: Request(method: "GET", target: "/api/openapi.json"))
        try #require(response.status == 200, "GET /api/openapi.json answered \(response.status)")
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(Data(response.body) == (try Data(contentsOf: Self.documentURL)), "GET /api/openapi.json does not serve api/openapi.json")
    }
}
