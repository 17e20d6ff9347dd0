import Foundation

/// A fresh directory for one benchmark's data, removed by `remove()`.
struct ScratchDirectory: Sendable {
    let path: String

    init(under parent: String, name: String) throws {
        path = (parent as NSString).appendingPathComponent("herald-bench-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
