import ArgumentParser
import Foundation
import HeraldClient

/// Options every client command shares.
struct ClientOptions: ParsableArguments {
    @Option(help: "Server URL (default: $HERALD_SERVER, else http://127.0.0.1:8580).")
    var server: String?

    @Option(help: "API key (default: $HERALD_API_KEY). Prefer the variable: flags show up in process lists.")
    var apiKey: String?

    @Flag(help: "Print the server's JSON instead of a table.")
    var json = false

    /// The server URL as given (flag, environment, default): what error messages name.
    var serverText: String {
        server ?? ProcessInfo.processInfo.environment["HERALD_SERVER"] ?? "http://127.0.0.1:8580"
    }

    /// A typed client of the server; every client command talks to the server through it.
    func client() throws -> HeraldClient {
        guard let url = URL(string: serverText), url.scheme != nil else { throw ValidationError("bad server URL \(serverText)") }
        return HeraldClient(baseURL: url, apiKey: apiKey ?? ProcessInfo.processInfo.environment["HERALD_API_KEY"])
    }

    /// Runs `body` with a client; what the library throws becomes the CLI's messages:
    /// `<reason>: <message> (HTTP <status>)` for a refusal, `cannot reach the Herald server at
    /// <url>: ...` for a server that does not answer (exit code 1 either way).
    func perform<Value>(_ body: (HeraldClient) async throws -> Value) async throws -> Value {
        let client = try client()
        do {
            return try await body(client)
        } catch let error as HeraldError {
            switch error {
            case .server(let status, let reason, let message):
                throw ServerRefusal(status: status, reason: reason, message: message)
            case .transport(_, let description):
                throw ServerUnreachable(url: serverText, underlying: description)
            default:
                throw error
            }
        }
    }
}

/// The app and device a command works on; `$HERALD_APP` and `$HERALD_DEVICE` fill them in.
struct DeviceOptions: ParsableArguments {
    @Option(help: "App bundle id (default: $HERALD_APP).")
    var app: String?

    @Option(help: "Device id (default: $HERALD_DEVICE).")
    var device: String?

    /// The device id, from `--device` or `$HERALD_DEVICE`.
    func deviceID() throws -> String {
        guard let device = device ?? ProcessInfo.processInfo.environment["HERALD_DEVICE"] else {
            throw ValidationError("--device is required")
        }
        return device
    }

    /// The app alone, for commands that name no device (a broadcast channel's).
    func appID() throws -> String {
        guard let app = app ?? ProcessInfo.processInfo.environment["HERALD_APP"] else { throw ValidationError("--app is required") }
        return app
    }
}

/// The server said no: printed as `error: <reason>: <message>`, exit code 1.
struct ServerRefusal: Error, CustomStringConvertible {
    var status: Int
    var reason: String
    var message: String

    var description: String { "\(reason): \(message) (HTTP \(status))" }
}

/// The server could not be reached: exit code 1 with the URL tried.
struct ServerUnreachable: Error, CustomStringConvertible {
    var url: String
    var underlying: String

    var description: String { "cannot reach the Herald server at \(url): \(underlying)" }
}

/// Every item of a paged collection, walking the pages, stopping after `limit` items if given.
func collect<Item>(_ sequence: PageSequence<Item>, limit: Int? = nil) async throws -> [Item] {
    var items: [Item] = []
    if limit == 0 { return items }
    for try await item in sequence {
        items.append(item)
        if let limit, items.count >= limit { break }
    }
    return items
}

// MARK: - JSON output

/// JSON as the server writes it: instants as RFC 3339 text, keys sorted, slashes as they are.
enum JSONOutput {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(instantText(date))
        }
        return encoder
    }

    /// Prints a value of the library's models as one JSON document (for `--json`).
    static func print(_ value: some Encodable) throws {
        Swift.print(String(decoding: try encoder().encode(value), as: UTF8.self))
    }

    /// A model as a JSON value, to merge with other fields.
    static func value(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: try encoder().encode(value))
    }

    /// A JSON value as compact text (a table cell).
    static func text(_ value: JSONValue) -> String {
        (try? encoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "-"
    }

    /// A walked listing as the server answers one page: `items`, `nextCursor`, and the
    /// collection's older key (`notifications`, `deliveries`...) repeating the items.
    static func printListing(_ items: some Encodable, nextCursor: String? = nil, legacyKey: String? = nil) throws {
        let list = try value(items)
        var object: [String: JSONValue] = ["items": list, "nextCursor": nextCursor.map(JSONValue.string) ?? .null]
        if let legacyKey { object[legacyKey] = list }
        try print(JSONValue.object(object))
    }
}

/// An instant as the server writes it: `2035-06-01T09:00:00Z`, with milliseconds when it has some.
func instantText(_ date: Date) -> String {
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    let whole = Date(timeIntervalSince1970: milliseconds / 1000)
    return milliseconds.truncatingRemainder(dividingBy: 1000) == 0
        ? whole.formatted(Date.ISO8601FormatStyle())
        : whole.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}

/// An RFC 3339 instant given on the command line (any offset, with or without fractions).
func parseInstant(_ text: String, flag: String) throws -> Date {
    if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
    if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
    throw ValidationError("\(flag) takes an RFC 3339 instant such as 2035-06-01T09:00:00Z, not '\(text)'")
}

/// A JSON object given on the command line (`--user-info`, `--data`, `--content-state`...).
func jsonObject(_ text: String, flag: String) throws -> [String: JSONValue] {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), let object = value.objectValue else {
        throw ValidationError("\(flag) must be a JSON object")
    }
    return object
}
