import Foundation
import HeraldCore
import HeraldStorage
import PostgresNIO

extension PostgresStore {
    // Keys compare in byte order (COLLATE "C") in both the filter and the sort, as on SQLite, so
    // a page always starts right after the previous page's last key.

    public func apps(after: String?, limit: Int) async throws -> ListPage<App> {
        try await read { connection in
            let rows = try await connection.rows("""
                SELECT \(unescaped: Self.appColumns) FROM app WHERE id COLLATE "C" > \(after ?? "")
                ORDER BY id COLLATE "C" LIMIT \(limit + 1)
                """, logger: self.logger)
            return ListPage(fetched: try rows.map(Self.app(from:)), limit: limit, key: \.id)
        }
    }

    public func devices(appID: String, filter: DeviceFilter, after: String?, limit: Int) async throws -> ListPage<Device> {
        try await read { connection in
            let rows = try await connection.rows("""
                SELECT \(unescaped: Self.deviceColumns) FROM device d
                WHERE d.app_id = \(appID) AND d.id COLLATE "C" > \(after ?? "") AND d.broadcast_channel IS NULL
                  AND (\(filter.platform?.rawValue)::text IS NULL OR d.platform = \(filter.platform?.rawValue))
                  AND (\(filter.state?.rawValue)::text IS NULL OR d.state = \(filter.state?.rawValue))
                ORDER BY d.id COLLATE "C" LIMIT \(limit + 1)
                """, logger: self.logger)
            return ListPage(fetched: try rows.map { try Self.device(from: $0) }, limit: limit, key: \.id)
        }
    }

    public func hooks(after: String?, limit: Int) async throws -> ListPage<StoredHook> {
        try await read { connection in
            let rows = try await connection.rows("""
                SELECT name, definition FROM hook WHERE name COLLATE "C" > \(after ?? "")
                ORDER BY name COLLATE "C" LIMIT \(limit + 1)
                """, logger: self.logger)
            let hooks = try rows.map { StoredHook(name: try $0.value(0), definition: try $0.value(1)) }
            return ListPage(fetched: hooks, limit: limit, key: \.name)
        }
    }

    public func deliveries(appID: String, deviceID: String, before: String?, limit: Int) async throws -> ListPage<Delivery> {
        let before = try before.map(ListPage<Delivery>.integerKey) ?? Int64.max
        return try await read { connection in
            // A device's rows are its history, read newest first, and its inbox, read whole
            // (the inbox index is in hand-over order, and an inbox is short), each through its
            // own index.
            let rows = try await connection.rows("""
                SELECT * FROM (
                    (SELECT \(unescaped: Self.deliveryColumns), key FROM delivery
                     WHERE app_id = \(appID) AND device_id = \(deviceID) AND key < \(before)
                         AND (\(unescaped: Self.outOfInbox))
                     ORDER BY key DESC LIMIT \(limit + 1))
                    UNION ALL
                    SELECT \(unescaped: Self.deliveryColumns), key FROM delivery
                    WHERE app_id = \(appID) AND device_id = \(deviceID) AND key < \(before) AND \(unescaped: Self.inInbox)
                ) AS device_rows
                ORDER BY key DESC LIMIT \(limit + 1)
                """, logger: self.logger)
            let keyed = try rows.map { (key: try $0.value(12, as: Int64.self), delivery: try Self.delivery(from: $0)) }
            let page = ListPage(fetched: keyed, limit: limit, key: { String($0.key) })
            return ListPage(items: page.items.map(\.delivery), nextKey: page.nextKey)
        }
    }
}
