import Foundation
import HeraldStorage

/// A SQLite store in a fresh temporary directory, removed after `body`: the store fixture of the
/// suites that need a real store but test something built on it (push, delivery).
public func withStore<T>(_ body: (SQLiteStore) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("herald-test-store-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try SQLiteStore(directory: directory)
    return try await body(store)
}
