import Foundation
import HeraldCore

/// Shorthands for the coalescing tests.
enum CoalescingFixture {
    static let catalog = EventCatalog.builtIn

    static func event(_ kind: String, _ key: String? = nil, _ value: JSONValue? = nil) -> SystemEvent {
        SystemEvent(kind: kind, key: key, value: value)
    }

    static func event(_ kind: String, _ key: String? = nil, _ value: String) -> SystemEvent {
        SystemEvent(kind: kind, key: key, value: .string(value))
    }

    static func event(_ kind: String, _ key: String? = nil, _ value: Double) -> SystemEvent {
        SystemEvent(kind: kind, key: key, value: .number(value))
    }

    static func event(_ kind: String, _ key: String? = nil, _ value: Bool) -> SystemEvent {
        SystemEvent(kind: kind, key: key, value: .bool(value))
    }

    /// A JSON array of strings.
    static func strings(_ members: String...) -> JSONValue {
        .array(members.map(JSONValue.string))
    }

    /// The stable reason of the refusal `body` throws, or nil when it does not throw.
    static func refusal(_ body: () throws -> Void) -> String? { HeraldCoreTests.refusal(body) }

    /// A queue that ingested `events` in order.
    static func queue(_ events: [SystemEvent], catalog: EventCatalog = catalog) throws -> DeviceEventQueue {
        var queue = DeviceEventQueue()
        for event in events { try queue.ingest(event, catalog: catalog) }
        return queue
    }

    /// What a queue that ingested `events` delivers on its first drain.
    static func drained(_ events: [SystemEvent], catalog: EventCatalog = catalog) throws -> [CoalescedNotification] {
        var queue = try queue(events, catalog: catalog)
        return queue.drain(catalog: catalog)
    }

    static func roundTripped<T: Codable>(_ value: T) throws -> T {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try JSONDecoder().decode(T.self, from: encoder.encode(value))
    }

    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
