import Foundation
import HeraldCore
import HeraldStorage
import Testing

/// What both backends' inbox migration tests store in the last schema with a separate inbox
/// table, and expect once each inbox item is its fire-log row.
///
/// Stored before: app `app`, device `d0`; fire-log rows 1 (`a#0`, held) and 2 (`b#0`, still
/// pending, leased to no node); inbox items 5 (for row 1), 6 (for row 2, acknowledged) and 7
/// (`c#0`, whose fire-log row 3 retention already removed); the hand-over series at 9.
public enum InboxUpgrade {
    /// Checks an upgraded store: the same ids, the acknowledgement kept (also when the pending
    /// firing is handed over again), and the series going on above the old ids.
    public static func expectUpgraded(_ store: any HeraldStore) async throws {
        let inbox = try await store.handedOver(appID: "app", deviceID: "d0", after: 0).inbox
        #expect(inbox.map(\.sequence) == [5, 7])
        #expect(inbox.map { $0.content.alert?.body } == ["a", "c"])
        // The acknowledged item stays acknowledged when its pending firing is handed over again.
        let pending = try #require(try await store.unfinishedFirings().fired.first)
        #expect(pending.occurrence.id == "b#0")
        #expect(try await store.holdInInbox([InboxItem(logID: pending.logID, occurrence: pending.occurrence,
                                                        content: try pending.content(), firedAt: pending.firedAt)]) == [6])
        #expect(try await store.coalescer.acknowledge(appID: "app", deviceID: "d0", upTo: 5).inboxItems == 1)
        let later = InboxItem(occurrence: Occurrence(appID: "app", deviceID: "d0", notificationID: "d", index: 0,
                                                     scheduledFor: Date(), late: false, missed: 0),
                              content: NotificationContent(alert: .init(body: "d")), firedAt: Date())
        #expect(try #require(try await store.holdInInbox([later]).first ?? nil) > 9)
        #expect(try await store.handedOver(appID: "app", deviceID: "d0", after: 5).inbox.map(\.content.alert?.body)
                == ["c", "d"])
    }
}
