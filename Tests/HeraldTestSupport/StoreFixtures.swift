import Foundation
import HeraldCore
import HeraldStorage

/// One-shot notifications and claims at fixed instants, for the store tests of every backend.
public struct StoreFixtures: Sendable {
    public let app: String
    /// The instant offsets count from.
    public let start: Date

    public init(app: String, start: Date) {
        self.app = app
        self.start = start
    }

    /// A one-shot `offset` seconds after `start`, its body its id.
    public func oneShot(_ id: String, device: String = "d0", at offset: TimeInterval) -> LocalNotification {
        let at = start.addingTimeInterval(offset)
        return LocalNotification(appID: app, deviceID: device, id: id, fireDate: .instant(at), timeZone: .absolute,
                                 repeatRule: nil, content: NotificationContent(alert: .init(body: id)),
                                 nextIndex: 0, nextFireDate: at)
    }

    /// Claims, `limit` at a time, everything due `offset` seconds after `start`, in UTC, looking
    /// again when a claim says to (cut short by its limit, or rows taken by another node's claim).
    public func claimAll(_ store: any SchedulerStore, at offset: TimeInterval, limit: Int = 50) async throws -> [FiredOccurrence] {
        let now = start.addingTimeInterval(offset)
        var fired: [FiredOccurrence] = []
        while true {
            let claim = try await store.claimDue(until: now, firedAt: now, limit: limit) { due in
                due.decision(deviceTimeZone: TimeZone(identifier: "UTC")!, now: now, lateAfter: 1)
            }
            fired += claim.fired
            if claim.more { continue }
            // A claim that found rows another node's claim was taking left them to it, and armed
            // a look (key -1) for a moment later, as the engine would: look then.
            guard claim.armed.contains(where: { $0.key == -1 }) else { return fired }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
