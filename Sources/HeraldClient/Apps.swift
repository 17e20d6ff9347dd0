import Foundation

extension HeraldClient {
    /// Creates or replaces an app (`PUT /v1/apps/{app}`); its push credentials are loaded
    /// before anything is stored.
    ///
    /// - parameter id: The bundle id, such as `com.example.alarm`.
    /// - parameter definition: Its settings.
    /// - returns: The app as stored, secrets masked, and whether it was created.
    /// - throws: ``HeraldError``: 403 `forbidden` (an app key naming files), 422 with what is wrong.
    ///
    /// ```swift
    /// try await client.putApp("com.example.alarm", AppDefinition(overflow: .keepSoonest))
    /// ```
    @discardableResult
    public func putApp(_ id: String, _ definition: AppDefinition = AppDefinition()) async throws -> Saved<HeraldApp> {
        try await save(Self.appPath(id), body: definition, as: HeraldApp.self)
    }

    /// Reads an app (`GET /v1/apps/{app}`).
    ///
    /// - parameter id: The bundle id.
    /// - returns: The app, secrets masked.
    /// - throws: ``HeraldError``: 404 `appNotFound`.
    public func app(_ id: String) async throws -> HeraldApp {
        try await get(Self.appPath(id), as: HeraldApp.self)
    }

    /// Deletes an app with its devices and notifications (`DELETE /v1/apps/{app}`).
    ///
    /// - parameter id: The bundle id.
    /// - throws: ``HeraldError``: 404 `appNotFound`.
    public func deleteApp(_ id: String) async throws {
        try await send("DELETE", Self.appPath(id))
    }

    /// One page of the apps (`GET /v1/apps`).
    ///
    /// - parameter limit: The most apps answered; nil: the server's default.
    /// - parameter cursor: The ``Page/nextCursor`` of the previous page; nil: the first page.
    /// - returns: The page.
    /// - throws: ``HeraldError``.
    ///
    /// ```swift
    /// let first = try await client.apps(limit: 100)
    /// ```
    public func apps(limit: Int? = nil, cursor: String? = nil) async throws -> Page<HeraldApp> {
        try await page("/v1/apps", legacyKey: "apps", limit: limit, cursor: cursor)
    }

    /// Every app, page after page.
    ///
    /// - parameter pageSize: The `limit` of each page; nil: the server's default.
    /// - returns: A sequence of the apps; iterating it throws ``HeraldError``.
    ///
    /// ```swift
    /// for try await app in client.allApps() { print(app.id) }
    /// ```
    public func allApps(pageSize: Int? = nil) -> PageSequence<HeraldApp> {
        PageSequence(pageSize: pageSize) { limit, cursor in try await self.apps(limit: limit, cursor: cursor) }
    }

    /// Checks an app's push settings end to end (`POST /v1/apps/{app}/doctor`); changes nothing.
    ///
    /// - parameter app: The bundle id.
    /// - returns: The checks; a failed check is in the report, not thrown.
    /// - throws: ``HeraldError``: 404 `appNotFound`.
    public func doctor(app: String) async throws -> DoctorReport {
        try await transport.send(.init(method: "POST", path: Self.appPath(app) + "/doctor"), as: DoctorReport.self)
    }
}
