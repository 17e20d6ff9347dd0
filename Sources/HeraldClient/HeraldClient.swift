import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A typed client of a Herald server's HTTP API.
///
/// One client serves any number of tasks at once. Every method is `async throws`: a refusal
/// from the server throws ``HeraldError/server(status:reason:message:)``, an unreachable server
/// ``HeraldError/transport(url:description:)``. Idempotent requests are retried per the
/// client's ``RetryPolicy``; `POST`s that create something carry an `Idempotency-Key`.
///
/// The client also remembers, per device, the highest hand-over id (inbox `seq`, `backlogSeq`,
/// event id) it has returned, and acknowledges it on the next ``wake(app:device:state:acknowledging:)``
/// or event stream connection for that device.
///
/// ```swift
/// let client = HeraldClient(baseURL: URL(string: "http://127.0.0.1:8580")!, apiKey: "hk_admin_...")
/// try await client.putDevice(app: "com.example.alarm", device: "phone-1",
///                            DeviceRegistration(timeZone: "Europe/Paris", token: apnsToken))
/// let scheduled = try await client.schedule(app: "com.example.alarm", device: "phone-1",
///                                           NotificationRequest(fireDate: Date.now.addingTimeInterval(3600),
///                                                               alert: AlertContent(title: "Wake up", body: "It is time")))
/// ```
public final class HeraldClient: Sendable {
    /// The server's base URL, such as `http://127.0.0.1:8580`.
    public let baseURL: URL
    /// The API key sent as `Authorization: Bearer <key>`; nil sends none.
    public let apiKey: String?
    /// The session requests go through.
    public let session: URLSession
    /// When requests are sent again.
    public let retry: RetryPolicy

    let transport: Transport
    /// Per device, the highest hand-over id returned to the caller and not yet known acknowledged.
    let handOvers = Locked<[DeviceKey: Int64]>([:])

    /// Creates a client.
    ///
    /// - parameter baseURL: The server's URL, such as `http://127.0.0.1:8580`; a path prefix is kept.
    /// - parameter apiKey: An admin key or a key scoped to one app; nil for a server without keys.
    /// - parameter session: The URL session to send requests through.
    /// - parameter retry: When requests are sent again; ``RetryPolicy/default`` makes three attempts.
    ///
    /// ```swift
    /// let client = HeraldClient(baseURL: URL(string: "https://herald.example.com")!,
    ///                           apiKey: ProcessInfo.processInfo.environment["HERALD_API_KEY"])
    /// ```
    public init(baseURL: URL, apiKey: String? = nil, session: URLSession = .shared, retry: RetryPolicy = .default) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.session = session
        self.retry = retry
        transport = Transport(baseURL: baseURL, apiKey: apiKey, session: session, retry: retry)
    }

    // MARK: - Requests shared by the endpoint methods

    func get<Answer: Decodable>(_ path: String, query: [URLQueryItem] = [], as type: Answer.Type) async throws -> Answer {
        try await transport.send(.init(method: "GET", path: path, query: query), as: type)
    }

    func send<Answer: Decodable>(_ method: String, _ path: String, body: some Encodable, idempotencyKey: String? = nil,
                                 as type: Answer.Type) async throws -> Answer {
        try await transport.send(.init(method: method, path: path, body: try Transport.encode(body), idempotencyKey: idempotencyKey),
                                 as: type)
    }

    /// A `PUT` of `body` to `path`: the stored resource, and whether it was created.
    func save<Value: Decodable & Sendable>(_ path: String, body: some Encodable, as type: Value.Type) async throws -> Saved<Value> {
        let reply = try await transport.send(.init(method: "PUT", path: path, body: try Transport.encode(body)))
        return Saved(value: try Transport.decode(type, from: reply.body), created: reply.status == 201)
    }

    @discardableResult
    func send(_ method: String, _ path: String, body: Data? = nil) async throws -> Transport.Reply {
        try await transport.send(.init(method: method, path: path, body: body))
    }

    /// One page of the collection at `path`: `items` (or, from a server without paging, `legacyKey`).
    func page<Item: Decodable & Sendable>(_ path: String, legacyKey: String? = nil, limit: Int?, cursor: String?,
                                         query: [URLQueryItem] = []) async throws -> Page<Item> {
        var items = query
        if let limit { items.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let cursor { items.append(URLQueryItem(name: "cursor", value: cursor)) }
        return try await transport.send(.init(method: "GET", path: path, query: items), as: Page<Item>.self, legacyKey: legacyKey)
    }

    /// The idempotency key of one logical call: the caller's, else a new UUID.
    static func key(_ given: String?) -> String { given ?? UUID().uuidString.lowercased() }

    static func appPath(_ app: String) -> String { "/v1/apps/\(segment(app))" }
    static func devicePath(_ app: String, _ device: String) -> String { "\(appPath(app))/devices/\(segment(device))" }
    static func channelPath(_ app: String, _ channel: String) -> String { "\(appPath(app))/channels/\(segment(channel))" }
}

/// A device, as the hand-over memory keys it.
struct DeviceKey: Hashable, Sendable {
    var app: String
    var device: String
}
