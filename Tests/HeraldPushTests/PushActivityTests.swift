import Foundation
import HeraldPush
import Testing

@Suite("Push outcomes as metrics and the status page count them")
struct PushActivityTests {
    private let noon = Date(timeIntervalSince1970: 1_800_000_000 - 1_800_000_000.truncatingRemainder(dividingBy: 60))

    @Test("An outcome's result: 200 accepted, 410 unregistered, 422 invalid, 504 timed out, other 4xx rejected, the rest failed")
    func outcomeResults() {
        let cases: [(Int, PushOutcome.Result)] = [(200, .accepted), (410, .unregistered), (422, .invalid), (504, .timedOut),
                                                   (400, .rejected), (403, .rejected), (429, .rejected), (500, .failed),
                                                   (502, .failed), (503, .failed)]
        for (status, result) in cases {
            #expect(PushOutcome(token: "t", status: status).result == result, "\(status)")
        }
    }

    @Test("A metric label's reason is APNs' known reason or Herald's own; any other text is 'other', none is 'none'")
    func boundedReasons() {
        #expect(PushOutcome(token: "t", status: 200).boundedReason == "none")
        #expect(PushOutcome(token: "t", status: 410, reason: "Unregistered").boundedReason == "Unregistered")
        #expect(PushOutcome(token: "t", status: 410, reason: "tokenInvalidated").boundedReason == "tokenInvalidated")
        #expect(PushOutcome(token: "t", status: 400, reason: "SomethingNewFromApple").boundedReason == "other")
        #expect(PushOutcome(token: "t", status: 500, reason: "HTTP500").boundedReason == "other")
    }

    @Test("Pushes per minute: 60 minutes oldest first, counts per app and all apps, older than an hour forgotten")
    func lastHourPerMinute() {
        let activity = PushActivity()
        activity.record([.accepted: 3], app: "a", now: noon.addingTimeInterval(-3_600))
        activity.record([.accepted: 2, .unregistered: 1], app: "a", now: noon.addingTimeInterval(-120))
        activity.record([.failed: 4], app: "b", now: noon.addingTimeInterval(-119))
        activity.record([.accepted: 1], app: "a", now: noon.addingTimeInterval(5))

        let all = activity.lastHour(now: noon.addingTimeInterval(10))
        #expect(all.count == 60)
        #expect(all.last?.start == noon)
        #expect(all.first?.start == noon.addingTimeInterval(-59 * 60))
        #expect(all[57].counts == [.accepted: 2, .unregistered: 1, .failed: 4], "two minutes ago, both apps")
        #expect(all.last?.counts == [.accepted: 1])
        #expect(activity.totals(app: "a", now: noon.addingTimeInterval(10)) == [.accepted: 3, .unregistered: 1],
                "the push an hour ago has left the window")
        #expect(activity.totals(app: "b", now: noon.addingTimeInterval(10)) == [.failed: 4])
        #expect(activity.totals(app: "b", now: noon.addingTimeInterval(3_600)).isEmpty)
    }
}
