import Foundation
import HeraldPostgres
import HeraldTestSupport
import Logging
import HeraldCore
import HeraldStorage
import Synchronization
import Testing

/// A store under test and how to restart it.
final class StoreUnderTest: @unchecked Sendable {
    private(set) var store: any HeraldStore
    private let reopenStore: () async throws -> any HeraldStore
    private let closeStore: (any HeraldStore) async -> Void

    init(store: any HeraldStore, reopen: @escaping () async throws -> any HeraldStore,
         close: @escaping (any HeraldStore) async -> Void) {
        self.store = store
        self.reopenStore = reopen
        self.closeStore = close
    }

    /// A new store object on the same data, as after a crash and a restart.
    func restart() async throws {
        let previous = store
        store = try await reopenStore()
        await closeStore(previous)
    }

    func close() async { await closeStore(store) }
}

/// What one test holds of a backend: a PostgreSQL server, say, with a fresh database per store.
struct BackendHost: Sendable {
    var makeStore: @Sendable () async throws -> StoreUnderTest
    var stop: @Sendable () -> Void
}

/// A backend the contract runs against.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    var name: String
    var start: @Sendable () throws -> BackendHost

    var testDescription: String { name }

    /// Runs `body` with the backend started, and stops it afterwards.
    func with(_ body: (BackendHost) async throws -> Void) async throws {
        let host = try start()
        defer { host.stop() }
        try await body(host)
    }

    static let sqlite = StoreBackend(name: "SQLite") {
        let root = NSTemporaryDirectory() + "herald-contract-\(UUID().uuidString)"
        return BackendHost(makeStore: {
            let directory = root + "/" + UUID().uuidString
            return StoreUnderTest(store: try SQLiteStore(directory: directory),
                                  reopen: { try SQLiteStore(directory: directory) }, close: { _ in })
        }, stop: { try? FileManager.default.removeItem(atPath: root) })
    }

    static let postgres = StoreBackend(name: "PostgreSQL") {
        let server = try PostgresServer.start()
        let databases = Mutex(0)
        return BackendHost(makeStore: {
            let database = "contract_\(databases.withLock { $0 += 1; return $0 })"
            try server.createDatabase(database)
            let location = try PostgresLocation(url: server.url(database: database))
            var logger = Logger(label: "herald.test.contract")
            logger.logLevel = .error
            // The contract judges what is stored, not how fast: 200 schedules queued on one device's
            // lock can outlast the default 10 s call deadline on a loaded machine (CI's lanes).
            let open = { [logger] in try await PostgresStore.open(location, nodeID: "node-a", poolSize: 8,
                                                                          callTimeout: .seconds(60), dueClock: .caller,
                                                                          logger: logger) }
            return StoreUnderTest(store: try await open(), reopen: open,
                                  close: { await ($0 as? PostgresStore)?.close() })
        }, stop: { server.stop() })
    }

    static let all: [StoreBackend] = [.sqlite, .postgres]
}

extension StoreBackend {
    /// The contract's app, and the instant its tests start at.
    static let app = "com.example.contract"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A fresh store on `host` with the contract's app and `devices` devices (`d0`, `d1`, …) in UTC.
    static func prepare(_ host: BackendHost, devices: Int = 1) async throws -> StoreUnderTest {
        let subject = try await host.makeStore()
        _ = try await subject.store.saveApp(App(id: app))
        for index in 0..<devices {
            _ = try await subject.store.saveDevice(Device(appID: app, id: "d\(index)", timeZone: "UTC"), now: start)
        }
        return subject
    }
}
