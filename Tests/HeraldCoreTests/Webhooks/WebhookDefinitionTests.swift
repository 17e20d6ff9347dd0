import Foundation
import HeraldCore
import Testing

@Suite("Webhook definitions")
struct WebhookDefinitionTests {
    let template = PushTemplate(devices: "/user/id", body: "{/message}")
    let secret = "whsec_0123456789abcdef"

    private func reason(_ definition: WebhookDefinition) -> String? {
        do {
            try definition.validate()
            return nil
        } catch {
            return error.reason.rawValue
        }
    }

    @Test("A valid definition defaults to a 300-second tolerance")
    func validDefinition() {
        let definition = WebhookDefinition(name: "orders", secrets: [secret], app: "com.example.app", template: template)
        #expect(reason(definition) == nil)
        #expect(definition.tolerance == 300)
    }

    @Test("At least one secret, each at least 16 bytes; two are allowed for rotation")
    func secretsRules() {
        #expect(reason(WebhookDefinition(name: "orders", secrets: [], app: "a.b", template: template)) == "missingWebhookSecret")
        #expect(reason(WebhookDefinition(name: "orders", secrets: [secret, "short"], app: "a.b", template: template)) == "weakWebhookSecret")
        #expect(reason(WebhookDefinition(name: "orders", secrets: [secret, secret + "new"], app: "a.b", template: template)) == nil)
    }

    @Test("Name and app are identifiers; tolerance is 1 second to a day")
    func nameAppTolerance() {
        #expect(reason(WebhookDefinition(name: "my hook", secrets: [secret], app: "a.b", template: template)) == "invalidId")
        #expect(reason(WebhookDefinition(name: "orders", secrets: [secret], app: "", template: template)) == "invalidId")
        #expect(reason(WebhookDefinition(name: "orders", secrets: [secret], app: "a.b", template: template, toleranceSeconds: 0)) == "invalidTolerance")
        #expect(reason(WebhookDefinition(name: "orders", secrets: [secret], app: "a.b", template: template, toleranceSeconds: 86_401)) == "invalidTolerance")
        #expect(reason(WebhookDefinition(name: "orders", secrets: [secret], app: "a.b", template: template, toleranceSeconds: 60)) == nil)
    }

    @Test("The template is validated with the definition")
    func templateValidated() {
        #expect(reason(WebhookDefinition(name: "orders", secrets: [secret], app: "a.b", template: PushTemplate(body: "x"))) == "invalidTemplate")
    }

    @Test("The description never shows secrets; Codable keeps them for storage")
    func secretsHidden() throws {
        let definition = WebhookDefinition(name: "orders", secrets: [secret], app: "a.b", template: template, toleranceSeconds: 60)
        #expect(!"\(definition)".contains(secret))
        #expect(try JSONDecoder().decode(WebhookDefinition.self, from: JSONEncoder().encode(definition)) == definition)
    }
}
