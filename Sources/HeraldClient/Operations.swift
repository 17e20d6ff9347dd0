import Foundation

extension HeraldClient {
    // MARK: Feedback outbox

    /// One page of the outbound feedback messages (`GET /v1/feedback/outbox`, admin).
    ///
    /// - parameter state: Only messages in this state; nil: all.
    /// - parameter limit: The most answered; nil: the server's default.
    /// - parameter cursor: The previous page's ``FeedbackOutbox/nextCursor``; nil: the first page.
    /// - returns: The messages, and whether a receiver's share is full.
    /// - throws: ``HeraldError``: 400 `invalidState`, 403 `forbidden`.
    public func feedbackOutbox(state: OutboxState? = nil, limit: Int? = nil, cursor: String? = nil) async throws -> FeedbackOutbox {
        var query: [URLQueryItem] = []
        if let state { query.append(URLQueryItem(name: "state", value: state.rawValue)) }
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        return try await get("/v1/feedback/outbox", query: query, as: FeedbackOutbox.self)
    }

    /// Every outbound feedback message, page after page.
    ///
    /// - parameter state: Only messages in this state; nil: all.
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the messages; iterating it throws ``HeraldError``.
    public func allFeedbackMessages(state: OutboxState? = nil, pageSize: Int? = nil) -> PageSequence<OutboxMessage> {
        PageSequence(pageSize: pageSize) { limit, cursor in
            try await self.feedbackOutbox(state: state, limit: limit, cursor: cursor).page
        }
    }

    /// Queues a parked feedback message again (`POST /v1/feedback/outbox/{id}/retry`, admin).
    ///
    /// - parameter id: The message's id.
    /// - throws: ``HeraldError``: 404 `messageNotFound` (no parked message with that id).
    public func retryFeedbackMessage(_ id: Int64) async throws {
        try await send("POST", "/v1/feedback/outbox/\(id)/retry")
    }

    // MARK: Status

    /// Every app, pending work, the outbox, pushes per minute and firing lateness (`GET /v1/status`, admin).
    ///
    /// - returns: The overview.
    /// - throws: ``HeraldError``: 403 `forbidden`.
    public func status() async throws -> StatusOverview {
        try await get("/v1/status", as: StatusOverview.self)
    }

    /// One app's devices with their pending, inbox and backlog counts (`GET /v1/status/apps/{app}`, admin).
    ///
    /// - parameter app: The bundle id.
    /// - returns: The app's status.
    /// - throws: ``HeraldError``: 403 `forbidden`.
    public func status(app: String) async throws -> AppStatus {
        try await get("/v1/status/apps/" + segment(app), as: AppStatus.self)
    }

    /// One device's pending notifications, recent deliveries, inbox and backlog
    /// (`GET /v1/status/apps/{app}/devices/{device}`, admin).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - returns: The device's status.
    /// - throws: ``HeraldError``: 404 `appNotFound`, `deviceNotFound`.
    public func status(app: String, device: String) async throws -> DeviceStatus {
        try await get("/v1/status/apps/\(segment(app))/devices/\(segment(device))", as: DeviceStatus.self)
    }

    // MARK: Health and documents

    /// Liveness (`GET /healthz`): the process answers.
    ///
    /// - returns: `ok`.
    /// - throws: ``HeraldError``.
    public func health() async throws -> Health {
        try await get("/healthz", as: Health.self)
    }

    /// Readiness (`GET /readyz`): the store answers and no loop is failing or stalled. An
    /// unready server (503) is answered, not thrown, and not retried.
    ///
    /// - returns: `ready`, or `unready` with the problems.
    /// - throws: ``HeraldError`` when the server cannot be reached or answers otherwise.
    public func readiness() async throws -> Health {
        let reply = try await transport.send(.init(method: "GET", path: "/readyz", accepting: [503]))
        return try Transport.decode(Health.self, from: reply.body)
    }

    /// The Prometheus metrics (`GET /metrics`), as the text exposition format.
    ///
    /// - returns: The text.
    /// - throws: ``HeraldError``.
    public func metrics() async throws -> String {
        String(decoding: try await transport.send(.init(method: "GET", path: "/metrics")).body, as: UTF8.self)
    }

    /// The OpenAPI document describing the API (`GET /openapi.yaml`).
    ///
    /// - returns: The YAML text.
    /// - throws: ``HeraldError``.
    public func openAPIDocument() async throws -> String {
        String(decoding: try await transport.send(.init(method: "GET", path: "/openapi.yaml")).body, as: UTF8.self)
    }

    // MARK: Administration

    /// Writes a consistent copy of the server's store to a file on the server
    /// (`POST /v1/admin/backup`, admin). Not retried.
    ///
    /// - parameter path: Where to write it, on the server.
    /// - returns: The file written, its size and its integrity check.
    /// - throws: ``HeraldError``: 403 `forbidden`, 422 with what is wrong with the path.
    public func backup(to path: String) async throws -> BackupResult {
        struct Body: Encodable { var to: String }
        return try await send("POST", "/v1/admin/backup", body: Body(to: path), as: BackupResult.self)
    }
}
