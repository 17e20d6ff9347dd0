import Foundation
import HeraldTestSupport
import Hummingbird
import Testing

@Suite("OpenAPI document")
struct OpenAPITests {
    @Test("GET /openapi.yaml is an OpenAPI 3.1 document that describes exactly the routes and methods the router has")
    func documentListsEveryRoute() async throws {
        try await withHerald { herald in
            let reply = try await herald.api.get("/openapi.yaml")
            #expect(reply.status == .ok)
            #expect(reply.text.hasPrefix("openapi: 3.1.0"))
            let documented = Self.operations(in: reply.text)
            // HEAD is answered wherever GET is, and not described separately.
            let registered = Set(herald.server.makeRouter().routes.map { "\($0.method.rawValue) \($0.path.description)" })
            #expect(documented == registered,
                    "undocumented: \(registered.subtracting(documented).sorted()); not served: \(documented.subtracting(registered).sorted())")
        }
    }

    @Test("/openapi.yaml serves Sources/HeraldAPI/openapi.yaml, the file the package ships, byte for byte")
    func documentIsTheShippedFile() async throws {
        let file = Repository.url("Sources/HeraldAPI/openapi.yaml")
        let source = try String(contentsOf: file, encoding: .utf8)
        try await withHerald { herald in
            let reply = try await herald.api.get("/openapi.yaml")
            #expect(reply.text == source)
        }
    }

    /// `METHOD /path` for every operation under `paths:` (two-space paths, four-space methods).
    static func operations(in document: String) -> Set<String> {
        var operations: Set<String> = []
        var path: String?
        var inPaths = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), let colon = line.firstIndex(of: ":") {
                path = String(line.dropFirst(2)[..<colon])
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "),
                      let method = ["get", "put", "post", "delete", "patch"].first(where: { line.hasPrefix("    \($0):") }) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }
}
