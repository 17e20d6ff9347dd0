import Foundation
import HeraldCore
import HeraldPush
import Hummingbird

/// `/v1/apps/{app}/channels[/{name}]`: iOS 18 broadcast channels, created and deleted on APNs's
/// channel management API and kept by the app's own name. A channel's scheduled broadcasts are
/// under `…/channels/{name}/notifications` (``NotificationRoutes``).
struct ChannelRoutes {
    let services: APIServices
    let gateway: PushGateway

    /// `POST` body.
    struct Body: Decodable {
        var name: String?
        var messageStoragePolicy: Int?
    }

    /// A channel with what APNs says of it, for `?refresh=true`.
    struct RefreshedChannel: Encodable {
        var name: String
        var apnsChannelId: String
        var messageStoragePolicy: Int
        /// False when APNs no longer knows the channel (deleted elsewhere, or expired).
        var onApns: Bool
        /// The policy APNs holds, when it knows the channel.
        var apnsMessageStoragePolicy: Int?
    }

    func register(on router: Router<HeraldRequestContext>) {
        let base = "/v1/apps/:app/channels"
        router.post(RouterPath(base)) { request, context in
            let app = try await services.directory.existingApp(try context.parameters.decoded("app"))
            let body = try await services.body.decode(Body.self, from: request)
            guard let name = body.name else { throw HeraldError.invalid(.missingField, "name is required") }
            let policy = body.messageStoragePolicy ?? 0
            try BroadcastChannel.validate(name: name, messageStoragePolicy: policy)
            let manager = try await manager(for: app)
            let existing = try await services.directory.channels(appID: app.id)
            guard !existing.contains(where: { $0.name == name }) else {
                throw HeraldError(.conflict, reason: .channelExists, message: "channel '\(name)' already exists")
            }
            // APNs's own limit, checked before APNs is asked.
            guard existing.count < BroadcastChannel.maximumPerEnvironment else {
                throw HeraldError.invalid(.tooManyChannels,
                                          "app '\(app.id)' has \(existing.count) channels; APNs allows \(BroadcastChannel.maximumPerEnvironment) per environment")
            }
            let id = try await Self.apns { () async throws(APNsChannelManager.Failure) in
                try await manager.create(messageStoragePolicy: policy)
            }
            let channel = BroadcastChannel(name: name, apnsChannelID: id, messageStoragePolicy: policy)
            let created: Bool
            do {
                created = try await services.directory.createChannel(channel, appID: app.id)
            } catch {
                // Not stored: leave nothing on APNs that no one knows the name of.
                _ = try? await manager.delete(id)
                throw error
            }
            guard created else {
                // Another request created the name meanwhile: it keeps it, this channel goes.
                _ = try? await manager.delete(id)
                throw HeraldError(.conflict, reason: .channelExists, message: "channel '\(name)' already exists")
            }
            return try Response.json(ChannelResource(channel), status: .created)
        }
        router.get(RouterPath(base)) { request, context in
            let pagination = try Pagination(request, defaultLimit: Pagination.maximumLimit)
            let app = try await services.directory.existingApp(try context.parameters.decoded("app"))
            let channels = pagination.page(of: try await services.directory.channels(appID: app.id), key: \.name)
            guard Self.refresh(request) else { return try Response.listing(channels.map(ChannelResource.init), legacyKey: "channels") }
            let manager = try await manager(for: app)
            let known = Set(try await Self.apns { () async throws(APNsChannelManager.Failure) in try await manager.list() })
            return try Response.listing(channels.map { channel in
                RefreshedChannel(name: channel.name, apnsChannelId: channel.apnsChannelID,
                                 messageStoragePolicy: channel.messageStoragePolicy, onApns: known.contains(channel.apnsChannelID))
            }, legacyKey: "channels")
        }
        router.get("\(base)/:name") { request, context in
            let appID = try context.parameters.decoded("app")
            let audience = try await services.directory.existingChannel(app: appID, name: try context.parameters.decoded("name"))
            guard let channel = audience.broadcastChannel else { throw HeraldError.appNotFound(appID) }
            guard Self.refresh(request) else { return try Response.json(ChannelResource(channel)) }
            let manager = try await manager(for: try await services.directory.existingApp(appID))
            let policy = try await Self.apns { () async throws(APNsChannelManager.Failure) in
                try await manager.storagePolicy(of: channel.apnsChannelID)
            }
            return try Response.json(RefreshedChannel(name: channel.name, apnsChannelId: channel.apnsChannelID,
                                                      messageStoragePolicy: channel.messageStoragePolicy, onApns: policy != nil,
                                                      apnsMessageStoragePolicy: policy))
        }
        router.delete("\(base)/:name") { _, context in
            let appID = try context.parameters.decoded("app")
            let audience = try await services.directory.existingChannel(app: appID, name: try context.parameters.decoded("name"))
            guard let channel = audience.broadcastChannel else { throw HeraldError.appNotFound(appID) }
            let manager = try await manager(for: try await services.directory.existingApp(appID))
            // On APNs first: a channel APNs no longer knows is deleted there already.
            _ = try await Self.apns { () async throws(APNsChannelManager.Failure) in try await manager.delete(channel.apnsChannelID) }
            // Then here, with its scheduled broadcasts.
            _ = try await services.directory.deleteDevice(appID: appID, id: audience.id)
            return Response(status: .noContent)
        }
    }

    /// The app's channel manager: APNs settings with token auth are required.
    private func manager(for app: App) async throws -> APNsChannelManager {
        guard app.push != nil else {
            throw HeraldError.invalid(.pushNotConfigured, "app '\(app.id)' has no push settings; channels live on APNs")
        }
        guard let manager = try await gateway.client(for: app).channels else {
            throw HeraldError.invalid(.liveActivityNeedsTokenAuth, "APNs manages broadcast channels for token auth only")
        }
        return manager
    }

    private static func refresh(_ request: Request) -> Bool {
        request.uri.queryParameters.get("refresh") == "true"
    }

    /// Runs one management call; APNs's refusal or silence becomes a 502 naming it.
    private static func apns<T>(_ call: () async throws(APNsChannelManager.Failure) -> T) async throws -> T {
        do {
            return try await call()
        } catch {
            switch error {
            case .refused(let status, let reason):
                throw APIError(status: .badGateway, reason: .apnsRefused, message: "APNs answered \(status) \(reason)")
            case .unreachable(let why):
                throw APIError(status: .badGateway, reason: .apnsUnreachable, message: "APNs's channel management API did not answer: \(why)")
            }
        }
    }
}
