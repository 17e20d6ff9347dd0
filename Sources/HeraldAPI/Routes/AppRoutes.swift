import HeraldCore
import HeraldCrypto
import HeraldPush
import Hummingbird

/// `/v1/apps/{app}`: register, read and delete apps; `GET /v1/apps` lists them.
///
/// Credentials belong to their app: only an admin names server files or custom hosts in push
/// settings; an app key uploads its own credentials as content. Secrets are stored whole and
/// shown masked.
struct AppRoutes {
    let services: APIServices
    let gateway: PushGateway

    func register(on router: Router<HeraldRequestContext>) {
        // An admin lists every app; an app key sees its own alone.
        router.get("/v1/apps") { request, context in
            let pagination = try Pagination(request)
            if case .app(let own) = context.principal {
                // One app at most: the key's own, unless the cursor is already past it.
                var items: [AppResource] = []
                if let app = try await services.directory.app(id: own), pagination.after.map({ $0 < app.id }) ?? true {
                    items = [AppResource(app)]
                }
                return try Response.listing(ListPage(items: items, nextKey: nil))
            }
            let page = try await services.directory.apps(after: pagination.after, limit: pagination.limit)
            return try Response.listing(page.map(AppResource.init))
        }
        router.put("/v1/apps/:app") { request, context in
            try await save(request, context: context)
        }
        router.get("/v1/apps/:app") { _, context in
            let id = try context.parameters.identifier("app")
            let app = try await services.directory.existingApp(id)
            return try Response.json(AppResource(app))
        }
        router.delete("/v1/apps/:app") { _, context in
            let id = try context.parameters.identifier("app")
            guard try await services.directory.deleteApp(id: id) else {
                throw HeraldError.appNotFound(id)
            }
            return Response(status: .noContent)
        }
        // `herald doctor`: the app's push settings checked end to end; changes nothing stored.
        router.post("/v1/apps/:app/doctor") { _, context in
            let app = try await services.directory.existingApp(try context.parameters.identifier("app"))
            let checks = await gateway.doctor.examine(app)
            struct Report: Encodable {
                var app: String
                var healthy: Bool
                var checks: [PushDoctor.Check]
            }
            return try Response.json(Report(app: app.id, healthy: !checks.contains { $0.outcome == .failed }, checks: checks))
        }
    }

    /// `PUT /v1/apps/{app}`: creates or replaces an app; push credentials are loaded before
    /// anything is stored.
    private func save(_ request: Request, context: HeraldRequestContext) async throws -> Response {
        let id = try context.parameters.identifier("app")
        let body = try await services.body.decode(AppBody.self, from: request)
        var overflow = OverflowPolicy.reject
        if let text = body.overflow {
            guard let policy = OverflowPolicy(rawValue: text) else {
                throw HeraldError.invalid(.invalidOverflow, "overflow must be reject or keepSoonest")
            }
            overflow = policy
        }
        let customKinds = body.customKinds ?? []
        _ = try EventCatalog(customKinds: customKinds)
        // Read once: masked secrets and the VAPID key pair are kept from what is stored.
        let stored = try await services.directory.app(id: id)
        let push = try body.push.map { settings throws(HeraldError) in
            try acceptedSettings(settings, stored: stored?.push, principal: context.principal)
        }
        let fcm = try body.fcm.map { settings throws(HeraldError) in try acceptedSettings(settings, principal: context.principal) }
        let webPush = try body.webPush.map { settings throws(HeraldError) in
            try acceptedSettings(settings, stored: stored?.webPush, principal: context.principal)
        }
        let app = App(id: id, overflow: overflow, push: push, customKinds: customKinds, fcm: fcm, webPush: webPush)
        // Loading the credentials now refuses a missing or broken key before anything is stored.
        if push != nil { _ = try await gateway.client(for: app) }
        if fcm != nil { _ = try await gateway.fcmClient(for: app) }
        if webPush != nil { _ = try await gateway.webPushClient(for: app) }
        let created = try await services.directory.saveApp(app)
        return try Response.json(AppResource(app), status: created ? .created : .ok)
    }

    /// FCM settings as they will be stored: an app key uploads the service account as content,
    /// for Google's endpoints; only an admin names files, other endpoints or a CA.
    private func acceptedSettings(_ settings: FCMSettings, principal: Principal) throws(HeraldError) -> FCMSettings {
        if !principal.isAdministrator, let field = try settings.adminOnlyFields().first {
            throw HeraldError.forbidden("only an admin key may set \(field); an app key uploads the service account as content")
        }
        try settings.validate()
        return settings
    }

    /// Web Push settings as they will be stored, with the app's VAPID key pair: the one uploaded
    /// (admin only), else the one already stored, else a new one.
    private func acceptedSettings(_ settings: WebPushSettings, stored: WebPushSettings?,
                                  principal: Principal) throws(HeraldError) -> WebPushSettings {
        if !principal.isAdministrator, let field = settings.adminOnlyFields.first {
            throw HeraldError.forbidden("only an admin key may set \(field) in webPush settings")
        }
        try settings.validate()
        var accepted = settings
        let key: ES256Key
        do {
            if let pem = settings.vapidPrivateKey {
                key = try ES256Key(pem: pem)
                guard key.isPrivate else { throw HeraldError.invalid(.invalidWebPushSettings, "vapidPrivateKey is a public key") }
            } else if let pem = stored?.vapidPrivateKey {
                key = try ES256Key(pem: pem)
            } else {
                key = try ES256Key.generate()
            }
            accepted.vapidPrivateKey = try key.privateKeyPEM()
            accepted.vapidPublicKey = Base64URL.encode(try key.publicKeyPoint)
        } catch let error as HeraldError {
            throw error
        } catch {
            throw .invalid(.invalidWebPushSettings, "webPush.vapidPrivateKey must be a PKCS#8 PEM EC P-256 private key")
        }
        return accepted
    }

    /// The settings as they will be stored: refused (403) when an app key names what only an
    /// admin may, and with every masked secret replaced by the one already stored in its place.
    private func acceptedSettings(_ settings: PushSettings, stored: PushSettings?,
                                  principal: Principal) throws(HeraldError) -> PushSettings {
        if !principal.isAdministrator, let field = settings.adminOnlyFields.first {
            throw HeraldError.forbidden(
                "only an admin key may set \(field) in push settings; an app key uploads its credentials as content and uses production or sandbox")
        }
        let accepted = try settings.restoringMaskedSecrets(from: stored)
        try accepted.validate()
        return accepted
    }
}
