import Foundation
import HeraldCore
import Testing

@Suite("Firing after downtime")
struct FiringPlanTests {
    let anchor = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("An occurrence fired on time is not late and misses nothing")
    func onTime() throws {
        let series = Recurrence(anchor: .instant(anchor), rule: RepeatRule(unit: .hour))
        let plan = try #require(FiringPlan.plan(series, dueIndex: 0, now: anchor, lateAfter: 1))
        #expect(plan.index == 0 && !plan.late && plan.missed == 0)
        #expect(plan.next == .init(index: 1, date: anchor.addingTimeInterval(3600)))
    }

    @Test("A past-due one-shot fires once, marked late, and the series ends")
    func pastDueOneShot() throws {
        let series = Recurrence(anchor: .instant(anchor), rule: nil)
        let plan = try #require(FiringPlan.plan(series, dueIndex: 0, now: anchor.addingTimeInterval(600), lateAfter: 1))
        #expect(plan.index == 0 && plan.late && plan.missed == 0 && plan.next == nil)
    }

    @Test("A repeating notification that missed occurrences fires once with missed: N and resumes in the future")
    func missedOccurrences() throws {
        let series = Recurrence(anchor: .instant(anchor), rule: RepeatRule(unit: .minute))
        let now = anchor.addingTimeInterval(9 * 60 + 30)  // occurrences 0...9 are due
        let plan = try #require(FiringPlan.plan(series, dueIndex: 0, now: now, lateAfter: 1))
        #expect(plan.index == 9)
        #expect(plan.missed == 9)
        #expect(plan.late)
        #expect(plan.scheduledFor == anchor.addingTimeInterval(9 * 60))
        #expect(plan.next == .init(index: 10, date: anchor.addingTimeInterval(600)))
    }

    @Test("A count-limited series that ended during downtime fires its last occurrence once")
    func endedDuringDowntime() throws {
        let series = Recurrence(anchor: .instant(anchor), rule: RepeatRule(unit: .minute, end: .count(5)))
        let plan = try #require(FiringPlan.plan(series, dueIndex: 1, now: anchor.addingTimeInterval(3600), lateAfter: 1))
        #expect(plan.index == 4 && plan.missed == 3 && plan.next == nil)
    }

    @Test("Within the late threshold an occurrence is on time")
    func withinThreshold() throws {
        let series = Recurrence(anchor: .instant(anchor), rule: nil)
        let plan = try #require(FiringPlan.plan(series, dueIndex: 0, now: anchor.addingTimeInterval(0.5), lateAfter: 1))
        #expect(!plan.late)
    }

    @Test("Nothing fires before its instant")
    func notBeforeInstant() {
        let series = Recurrence(anchor: .instant(anchor), rule: nil)
        #expect(FiringPlan.plan(series, dueIndex: 0, now: anchor.addingTimeInterval(-0.001), lateAfter: 1) == nil)
    }

    @Test("Each occurrence has a stable id: the notification id and the occurrence index")
    func stableOccurrenceID() {
        #expect(Occurrence.id(notificationID: "wake-up", index: 41) == "wake-up#41")
    }
}
