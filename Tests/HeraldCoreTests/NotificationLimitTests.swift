import Foundation
import HeraldCore
import Testing

@Suite("The 128 limit")
struct NotificationLimitTests {
    let base = Date(timeIntervalSince1970: 1_800_000_000)

    func pending(_ count: Int) -> [NotificationLimit.Pending] {
        (0..<count).map { .init(id: "n\($0)", nextFireDate: base.addingTimeInterval(Double($0) * 60), sequence: Int64($0)) }
    }

    @Test("The limit is 128 pending notifications per device")
    func limitIs128() {
        #expect(NotificationLimit.maximumPending == 128)
    }

    @Test("Up to 128 pending notifications are admitted with nothing evicted")
    func admitsUpTo128() throws {
        let incoming = NotificationLimit.Pending(id: "new", nextFireDate: base, sequence: 999)
        #expect(try NotificationLimit.admit(incoming, into: pending(127), policy: .reject).isEmpty)
    }

    @Test("The 129th is refused with notificationLimitReached under reject")
    func rejects129th() {
        let incoming = NotificationLimit.Pending(id: "new", nextFireDate: base, sequence: 999)
        #expect(throws: HeraldError(.conflict, reason: .notificationLimitReached,
                                    message: "the device already has 128 pending notifications; the limit is 128")) {
            try NotificationLimit.admit(incoming, into: pending(128), policy: .reject)
        }
    }

    @Test("Replacing an id that is already pending at the limit is allowed")
    func replaceAtLimit() throws {
        let incoming = NotificationLimit.Pending(id: "n5", nextFireDate: base.addingTimeInterval(1e6), sequence: 999)
        #expect(try NotificationLimit.admit(incoming, into: pending(128), policy: .reject).isEmpty)
    }

    @Test("keepSoonest evicts the latest-firing notification to make room")
    func keepSoonestEvictsLatest() throws {
        let incoming = NotificationLimit.Pending(id: "new", nextFireDate: base.addingTimeInterval(30), sequence: 999)
        #expect(try NotificationLimit.admit(incoming, into: pending(128), policy: .keepSoonest) == ["n127"])
    }

    @Test("keepSoonest evicts the incoming one itself when it fires last")
    func keepSoonestEvictsIncoming() throws {
        let incoming = NotificationLimit.Pending(id: "new", nextFireDate: base.addingTimeInterval(1e9), sequence: 999)
        #expect(try NotificationLimit.admit(incoming, into: pending(128), policy: .keepSoonest) == ["new"])
    }

    @Test("keepSoonest breaks a tie on fire date by evicting the newest")
    func keepSoonestTieEvictsNewest() throws {
        let same = base.addingTimeInterval(127 * 60)
        let incoming = NotificationLimit.Pending(id: "new", nextFireDate: same, sequence: 999)
        #expect(try NotificationLimit.admit(incoming, into: pending(128), policy: .keepSoonest) == ["new"])
    }
}
