/// `GET /openapi.yaml`: the API described for clients and tools (OpenAPI 3.1).
///
/// The document is `Sources/HeraldAPI/openapi.yaml`, embedded in the binary at build time
/// (SwiftPM's `embedInCode`), so the server serves it wherever it is installed and the tests
/// read the same bytes.
enum OpenAPIDocument {
    static let yaml = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
}
