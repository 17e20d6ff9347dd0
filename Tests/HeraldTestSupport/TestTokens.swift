import Foundation

/// Device tokens for tests: 32 bytes of hex, like real ones, distinct per seed; `family` keeps
/// one suite's tokens apart from another's.
public func testDeviceToken(_ seed: Int, family: UInt8) -> String {
    String(repeating: String(format: "%02x", family), count: 28) + String(format: "%08x", seed)
}
