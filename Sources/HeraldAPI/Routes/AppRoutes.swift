import HeraldCore
import HeraldPush
import Hummingbird

/// `/v1/apps/{app}`: register, read and delete apps.
///
/// Credentials belong to their app: only an admin names server files or custom hosts in push
/// settings; an app key uploads its own credentials as content. Secrets are stored whole and
/// shown masked.
struct AppRoutes {
    let services: APIServices
    let gateway: PushGateway

    func register(on router: Router<HeraldRequestContext>) {
        router.put("/v1/apps/:app") { request, context in
            let id = try context.parameters.identifier("app")
            let body = try await services.body.decode(AppBody.self, from: request)
            var overflow = OverflowPolicy.reject
            if let text = body.overflow {
                guard let policy = OverflowPolicy(rawValue: text) else {
                    throw HeraldError.invalid("invalidOverflow", "overflow must be reject or keepSoonest")
                }
                overflow = policy
            }
            let customKinds = body.customKinds ?? []
            _ = try EventCatalog(customKinds: customKinds)
            var push = body.push
            if let settings = push {
                if !context.principal.isAdministrator, let field = settings.adminOnlyFields.first {
                    throw HeraldError.forbidden(
                        "only an admin key may set \(field) in push settings; an app key uploads its credentials as content and uses production or sandbox")
                }
                push = try settings.restoringMaskedSecrets(from: try await services.store.app(id: id)?.push)
            }
            let app = App(id: id, overflow: overflow, push: push, customKinds: customKinds)
            if let push {
                try push.validate()
                // Loading the credentials now refuses a missing or broken key before anything is stored.
                _ = try await gateway.client(for: app)
            }
            let created = try await services.store.saveApp(app)
            return try Response.json(AppResource(app), status: created ? .created : .ok)
        }
        router.get("/v1/apps/:app") { _, context in
            try Response.json(AppResource(try await services.existingApp(try context.parameters.identifier("app"))))
        }
        router.delete("/v1/apps/:app") { _, context in
            let id = try context.parameters.identifier("app")
            guard try await services.store.deleteApp(id: id) else {
                throw HeraldError.notFound("appNotFound", "app '\(id)' does not exist")
            }
            return Response(status: .noContent)
        }
    }
}
