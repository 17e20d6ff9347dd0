import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Options every client command shares.
struct ClientOptions: ParsableArguments {
    @Option(help: "Server URL (default: $HERALD_SERVER, else http://127.0.0.1:8580).")
    var server: String?

    @Option(help: "API key (default: $HERALD_API_KEY). Prefer the variable: flags show up in process lists.")
    var apiKey: String?

    @Flag(help: "Print the server's JSON instead of a table.")
    var json = false

    var client: HeraldClient {
        let environment = ProcessInfo.processInfo.environment
        return HeraldClient(baseURL: server ?? environment["HERALD_SERVER"] ?? "http://127.0.0.1:8580",
                            apiKey: apiKey ?? environment["HERALD_API_KEY"])
    }
}

/// The app and device a command works on; `$HERALD_APP` and `$HERALD_DEVICE` fill them in.
struct DeviceOptions: ParsableArguments {
    @Option(help: "App bundle id (default: $HERALD_APP).")
    var app: String?

    @Option(help: "Device id (default: $HERALD_DEVICE).")
    var device: String?

    func path() throws -> String {
        let app = try appID()
        guard let device = device ?? ProcessInfo.processInfo.environment["HERALD_DEVICE"] else {
            throw ValidationError("--device is required")
        }
        return "/v1/apps/\(app)/devices/\(device)"
    }

    /// The app alone, for paths that name no device (a broadcast channel's).
    func appID() throws -> String {
        guard let app = app ?? ProcessInfo.processInfo.environment["HERALD_APP"] else { throw ValidationError("--app is required") }
        return app
    }
}

/// A minimal HTTP client for the Herald API.
struct HeraldClient: Sendable {
    var baseURL: String
    var apiKey: String?

    struct Reply {
        var status: Int
        var body: Data

        var object: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }
    }

    /// Sends a request; a non-2xx answer becomes ``ServerRefusal`` with the server's reason.
    func send(_ method: String, _ path: String, json: [String: Any]? = nil) async throws -> Reply {
        try await send(method, path, body: try json.map { try JSONSerialization.data(withJSONObject: $0) })
    }

    /// Sends raw bytes (already JSON) with extra headers, as a signed hook needs.
    func send(_ method: String, _ path: String, body: Data?, headers: [String: String] = [:]) async throws -> Reply {
        guard let url = URL(string: baseURL + path) else { throw ValidationError("bad server URL \(baseURL)") }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw ServerUnreachable(url: baseURL, underlying: error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let reply = Reply(status: status, body: data)
        guard (200..<300).contains(status) else {
            let detail = reply.object["error"] as? [String: Any]
            throw ServerRefusal(status: status, reason: detail?["reason"] as? String ?? "httpError",
                                message: detail?["message"] as? String ?? String(decoding: data, as: UTF8.self))
        }
        return reply
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

extension HeraldClient.Reply {
    /// Prints the raw JSON (for `--json`).
    func printJSON() {
        print(String(decoding: body, as: UTF8.self))
    }
}
