import Foundation
import HeraldCore
import HeraldStorage

/// The signed inbound webhooks' definitions, stored as JSON under their names.
///
/// ```swift
/// let hooks = HookDefinitions(store: store)
/// let created = try await hooks.save(definition)
/// ```
public struct HookDefinitions: Sendable {
    private let store: any HookStore & ListingStore

    public init(store: any HookStore & ListingStore) {
        self.store = store
    }

    /// Validates and stores (or replaces) a definition. Returns true when it was created.
    ///
    /// - Throws: the definition's validation error; nothing is stored then.
    public func save(_ definition: WebhookDefinition) async throws -> Bool {
        try definition.validate()
        return try await store.saveHook(name: definition.name, definition: try Self.encode(definition))
    }

    /// Definitions with a name after `after`, at most `limit`, by name.
    public func list(after: String?, limit: Int) async throws -> ListPage<WebhookDefinition> {
        let page = try await store.hooks(after: after, limit: limit)
        return ListPage(items: try page.items.map { try Self.decode($0.definition) }, nextKey: page.nextKey)
    }

    /// - Throws: `hookNotFound`.
    public func definition(named name: String) async throws -> WebhookDefinition {
        guard let text = try await store.hook(name: name) else {
            throw HeraldError.notFound(.hookNotFound, "hook '\(name)' does not exist")
        }
        return try Self.decode(text)
    }

    /// Deletes a definition. Returns false when there was none of that name.
    public func delete(named name: String) async throws -> Bool {
        try await store.deleteHook(name: name)
    }

    static func decode(_ stored: String) throws -> WebhookDefinition {
        try JSONDecoder().decode(WebhookDefinition.self, from: Data(stored.utf8))
    }

    static func encode(_ definition: WebhookDefinition) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(definition), as: UTF8.self)
    }
}
