import Foundation
import HeraldCore

/// Which firings can end nowhere but held in their device's inbox, whatever else is stored.
///
/// A claim that is given the rule holds such a firing in its own write, as the channel would
/// have after it: one fire-log row written once, instead of a row written pending and then
/// updated to held. The channel that delivers the other firings owns the rule (`DeviceRouter`
/// in the delivery module); a channel without one sees every firing.
///
/// ```swift
/// let rule = InboxOnlyRule { device, storedContent in device.pushAddress == nil && device.state != .active }
/// let claim = try await store.claimDue(until: now, firedAt: now, limit: 1_000, holding: rule) { due in … }
/// // claim.heldInInbox: already held, outcome stored; claim.fired: for the dispatcher.
/// ```
public struct InboxOnlyRule: Sendable {
    private let test: @Sendable (_ device: Device, _ storedContent: String) -> Bool

    /// - Parameter test: true only when a firing of `storedContent` (the content's JSON text as
    ///   stored) to `device` would certainly end held in the device's inbox.
    public init(_ test: @escaping @Sendable (_ device: Device, _ storedContent: String) -> Bool) {
        self.test = test
    }

    /// Whether a firing of `storedContent` to `device` can only end held in its inbox.
    public func holds(_ device: Device, storedContent: String) -> Bool {
        test(device, storedContent)
    }

    /// Whether a claim made at `firedAt` may hold `firing` in its device's inbox itself: only
    /// once its instant has come (an inbox item is visible to a wake from the commit on, and
    /// nothing is handed over early), and only when it can end nowhere else.
    public func holdsInClaim(_ firing: Occurrence, device: Device, storedContent: String, firedAt: Date) -> Bool {
        firing.scheduledFor <= firedAt && holds(device, storedContent: storedContent)
    }
}
