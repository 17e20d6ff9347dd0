import Foundation
import GRDB
import HeraldCore

extension SQLiteStore {
    public func apps(after: String?, limit: Int) async throws -> ListPage<App> {
        try await connections.read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.appColumns) FROM app WHERE id > ? ORDER BY id LIMIT ?
                """), arguments: [after ?? "", limit + 1])
            return ListPage(fetched: try rows.map(Self.app(from:)), limit: limit, key: \.id)
        }
    }

    public func devices(appID: String, filter: DeviceFilter, after: String?, limit: Int) async throws -> ListPage<Device> {
        try await connections.read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.deviceColumns) FROM device
                WHERE app_id = ? AND id > ? AND broadcast_channel IS NULL
                  AND (? IS NULL OR platform = ?) AND (? IS NULL OR state = ?)
                ORDER BY id LIMIT ?
                """), arguments: [appID, after ?? "", filter.platform?.rawValue, filter.platform?.rawValue,
                                  filter.state?.rawValue, filter.state?.rawValue, limit + 1])
            return ListPage(fetched: try rows.map { try Self.device(from: $0) }, limit: limit, key: \.id)
        }
    }

    public func hooks(after: String?, limit: Int) async throws -> ListPage<StoredHook> {
        try await connections.read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT name, definition FROM hook WHERE name > ? ORDER BY name LIMIT ?
                """), arguments: [after ?? "", limit + 1])
            return ListPage(fetched: rows.map { StoredHook(name: $0[0], definition: $0[1]) }, limit: limit, key: \.name)
        }
    }

    public func deliveries(appID: String, deviceID: String, before: String?, limit: Int) async throws -> ListPage<Delivery> {
        let before = try before.map(ListPage<Delivery>.integerKey) ?? Int64.max
        return try await connections.read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.deliveryColumns), key FROM delivery WHERE app_id = ? AND device_id = ? AND key < ?
                ORDER BY key DESC LIMIT ?
                """), arguments: [appID, deviceID, before, limit + 1])
            let keyed = rows.map { (key: $0[Self.deliveryColumnCount] as Int64, delivery: Self.delivery(from: $0)) }
            let page = ListPage(fetched: keyed, limit: limit, key: { String($0.key) })
            return ListPage(items: page.items.map(\.delivery), nextKey: page.nextKey)
        }
    }
}
