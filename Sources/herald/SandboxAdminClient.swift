import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A minimal HTTP client for the admin API of `herald sandbox` (inboxes, faults, subscriptions):
/// a test double's own API, not Herald's, so the typed HeraldClient library does not cover it.
struct SandboxAdminClient: Sendable {
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

    /// Sends raw bytes (already JSON) with extra headers.
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

extension SandboxAdminClient.Reply {
    /// Prints the raw JSON (for `--json`).
    func printJSON() {
        print(String(decoding: body, as: UTF8.self))
    }
}
