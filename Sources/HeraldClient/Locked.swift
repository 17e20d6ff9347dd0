import Foundation

/// A value behind a lock, shared between tasks.
///
/// `@unchecked Sendable`: `value` is only read or written inside `lock`, which is what makes
/// sharing it safe. (`Mutex` from Synchronization would say so to the compiler, but needs
/// macOS 15 / iOS 18, later than this library's platforms.)
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
