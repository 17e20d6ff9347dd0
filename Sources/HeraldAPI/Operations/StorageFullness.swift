import Foundation
import Synchronization

/// Whether the store's disk was full when a request last tried to write, for `/readyz`.
///
/// A write refused for a full disk marks the node not ready. The mark clears when a later write
/// succeeds (space came back) or after ``memory`` without another refusal, so a node that nobody
/// writes to is not kept out of a load balancer forever: the next refused write marks it again.
///
/// ```swift
/// let fullness = StorageFullness()
/// fullness.refused(call: "POST /v1/apps/demo/devices/d1/notifications (saveNotification)")
/// fullness.problem()   // "storage: the disk is full (…); writes answer 503 storageFull until space is freed"
/// fullness.wrote()
/// ```
final class StorageFullness: Sendable {
    /// How long one refusal keeps the node not ready without another.
    static let memory: TimeInterval = 30

    private struct Refusal {
        var at: Date
        var call: String
    }

    private let last = Mutex<Refusal?>(nil)

    /// A write was refused because the disk is full.
    func refused(call: String, at now: Date = Date()) {
        last.withLock { $0 = Refusal(at: now, call: call) }
    }

    /// A write succeeded: there is room again.
    func wrote() {
        last.withLock { $0 = nil }
    }

    /// What `/readyz` says while the disk is full; nil otherwise.
    func problem(now: Date = Date()) -> String? {
        last.withLock { refusal in
            guard let refusal, now.timeIntervalSince(refusal.at) < Self.memory else { return nil }
            let stamp = refusal.at.formatted(.iso8601)
            return "storage: the disk is full (last refused write: \(refusal.call) at \(stamp)); writes answer 503 storageFull until space is freed"
        }
    }
}
