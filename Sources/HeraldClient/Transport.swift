import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange with the server: building the request, sending it (again, when the retry
/// policy allows), and reading the answer or the refusal.
struct Transport: Sendable {
    let baseURL: URL
    let apiKey: String?
    let session: URLSession
    let retry: RetryPolicy

    /// An answer with a 2xx status (or one the caller accepts).
    struct Reply: Sendable {
        var status: Int
        /// Header names lowercased.
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// A request as the client methods describe it.
    struct Request: Sendable {
        var method: String
        var path: String
        var query: [URLQueryItem] = []
        var body: Data?
        var contentType = "application/json"
        var headers: [String: String] = [:]
        /// Sent as `Idempotency-Key`, the same on every attempt; it makes a `POST` retryable.
        var idempotencyKey: String?
        /// Statuses returned as a reply rather than thrown (`/readyz`'s 503).
        var accepting: Set<Int> = []
        /// Whether the `Authorization` header is sent.
        var authenticated = true

        var isRetryable: Bool {
            ["GET", "PUT", "DELETE", "HEAD"].contains(method) || idempotencyKey != nil
        }
    }

    /// The URL of `path` (already percent-encoded) under the base URL, with `query`.
    func url(path: String, query: [URLQueryItem] = []) throws(HeraldError) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard var components = URLComponents(string: base + path) else {
            throw .invalidRequest("\(base + path) is not a URL")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw .invalidRequest("\(base + path) is not a URL") }
        return url
    }

    /// The `URLRequest` for `request`, with the shared headers.
    func urlRequest(_ request: Request) throws(HeraldError) -> URLRequest {
        var urlRequest = URLRequest(url: try url(path: request.path, query: request.query))
        urlRequest.httpMethod = request.method
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body = request.body {
            urlRequest.httpBody = body
            urlRequest.setValue(request.contentType, forHTTPHeaderField: "Content-Type")
        }
        if request.authenticated, let apiKey { urlRequest.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        if let key = request.idempotencyKey { urlRequest.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        return urlRequest
    }

    /// Sends `request`, retrying as ``RetryPolicy`` allows.
    ///
    /// - throws: ``HeraldError``, or `CancellationError` when the task is cancelled.
    func send(_ request: Request) async throws -> Reply {
        let urlRequest = try urlRequest(request)
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            let outcome: Result<Reply, HeraldError>
            var wait: Duration?
            do {
                let (data, response) = try await session.data(for: urlRequest)
                let http = response as? HTTPURLResponse
                let status = http?.statusCode ?? 0
                let reply = Reply(status: status, headers: Self.headers(of: http), body: data)
                if (200..<300).contains(status) || request.accepting.contains(status) { return reply }
                let refusal = HeraldError.refusal(status: status, body: data)
                outcome = .failure(refusal)
                if status == 503 {
                    wait = reply.header("Retry-After").flatMap(Self.retryAfter) ?? retry.backoff(afterFailures: attempt)
                } else if request.idempotencyKey != nil, refusal.reason == "idempotencyKeyInProgress" {
                    // An earlier attempt of this very call is still running on the server: its
                    // answer will be stored under the key, so asking again later gets it.
                    wait = reply.header("Retry-After").flatMap(Self.retryAfter) ?? retry.backoff(afterFailures: attempt)
                }
            } catch {
                if Task.isCancelled { throw CancellationError() }
                if let urlError = error as? URLError, urlError.code == .cancelled { throw CancellationError() }
                outcome = .failure(.transport(url: urlRequest.url ?? baseURL, description: Self.describe(error)))
                wait = retry.backoff(afterFailures: attempt)
            }
            guard request.isRetryable, attempt < retry.maxAttempts, let delay = wait, delay <= retry.maxRetryAfter else {
                return try outcome.get()
            }
            try await Task.sleep(for: delay)
        }
    }

    /// Sends `request` and decodes its JSON answer, with whether the server replayed a stored
    /// answer for its `Idempotency-Key` (`Idempotent-Replayed: true`).
    func sendReplayable<Answer: Decodable>(_ request: Request, as type: Answer.Type) async throws -> (Answer, replayed: Bool) {
        let reply = try await send(request)
        return (try Self.decode(type, from: reply.body), reply.header("Idempotent-Replayed") == "true")
    }

    /// Sends `request` and decodes its JSON answer.
    func send<Answer: Decodable>(_ request: Request, as type: Answer.Type, legacyKey: String? = nil) async throws -> Answer {
        try Self.decode(type, from: try await send(request).body, legacyKey: legacyKey)
    }

    static func decode<Answer: Decodable>(_ type: Answer.Type, from data: Data, legacyKey: String? = nil) throws(HeraldError) -> Answer {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamp.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                        debugDescription: "'\(text)' is not an RFC 3339 instant"))
            }
            return date
        }
        if let legacyKey { decoder.userInfo[Page<Int>.legacyKeyOption] = legacyKey }
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw .decoding(type: String(describing: type), description: "\(error)")
        }
    }

    static func encode(_ value: some Encodable) throws(HeraldError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
        do {
            return try encoder.encode(value)
        } catch {
            throw .invalidRequest("the body does not encode as JSON: \(error)")
        }
    }

    static func headers(of response: HTTPURLResponse?) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return headers
    }

    /// `Retry-After`: seconds, or an HTTP date.
    static func retryAfter(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 { return .milliseconds(Int64(seconds * 1000)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSinceNow) * 1000))
    }

    static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError { return "\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))" }
        return "\(error)"
    }
}

/// RFC 3339 instants, as the server writes them (`2035-06-01T09:00:00Z`, with milliseconds
/// when there are some) and reads them (any offset).
enum Timestamp {
    static func date(from text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    static func string(from date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let whole = Date(timeIntervalSince1970: milliseconds / 1000)
        return milliseconds.truncatingRemainder(dividingBy: 1000) == 0
            ? whole.formatted(Date.ISO8601FormatStyle())
            : whole.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// A path segment, percent-encoded: ids never contain `/`, but names from callers might.
func segment(_ text: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/;?#")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}
