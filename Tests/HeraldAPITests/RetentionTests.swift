import Foundation
import HeraldCore
import HeraldSandbox
import Hummingbird
import HeraldTestSupport
import Testing

// Nothing grows without end: delivery records, feedback events and the outbox, and hook
// idempotency records are pruned once older than their retention, off the firing path.

@Suite("Retention prunes history")
struct RetentionTests {
    static let device = "/v1/apps/\(GuardApps.alarm)/devices/\(GuardApps.device)"

    @Test("Deliveries older than retention.deliveriesDays (30) are pruned; younger ones stay")
    func deliveriesPruned() async throws {
        try await withGuardedHerald { herald in
            try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
            for (id, fireDate) in [("old", "2026-11-01T00:01:00Z"), ("recent", "2026-11-20T00:00:00Z")] {
                let reply = try await herald.post("\(Self.device)/notifications", json: notification(id: id, fireDate: fireDate))
                try #require(reply.status == .created, "\(reply.text)")
            }
            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)
            herald.clock.advance(to: Moment.instant("2026-11-20T00:00:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)
            let before = try await herald.get("\(Self.device)/deliveries").json["deliveries"].array ?? []
            #expect(before.count == 2)

            // 30 days after the first firing, plus a minute: only the first is past retention.
            herald.clock.advance(to: Moment.instant("2026-12-01T00:02:00Z"))
            let pruned = try await herald.server.pruner.pruneOnce()
            #expect(pruned >= 1)
            let after = try await herald.get("\(Self.device)/deliveries").json["deliveries"].array ?? []
            #expect(after.map { $0["notificationId"].string } == ["recent"], "\(after)")
        }
    }

    @Test("Feedback events and delivered outbox messages older than retention.feedbackDays (7) are pruned")
    func feedbackPruned() async throws {
        try await withFeedbackReceiver { receiver, base in
            var options = feedbackOptions(["\(base)/hook"])
            options.faults = SandboxFaults(unregistered: [guardToken(5)])
            try await withGuardedHerald(options: options) { herald in
                try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
                try await herald.push(to: guardToken(5))
                let delivered = await pollUntil { ((try? await herald.outbox(state: "delivered").messages.count) ?? 0) == 1 }
                try #require(delivered)
                // The outbox stamps messages with the wall clock; prune as of eight days later.
                herald.clock.advance(to: Date().addingTimeInterval(8 * 86_400))
                let pruned = try await herald.server.pruner.pruneOnce()
                #expect(pruned >= 2, "the event and its delivered message: \(pruned)")
                #expect(try await herald.outbox().messages.isEmpty)
            }
        }
    }

    @Test("Idempotency and replay records older than their retention are pruned; a resend after that is new")
    func idempotencyPruned() async throws {
        var template = HookFixture.template
        template["idempotencyKey"] = "/eventId"
        try await withOrdersHook(definition: HookFixture.definition(template: template)) { herald in
            let body = HookFixture.event(eventID: "evt-9")
            #expect(try await herald.sendSignedHook(body: body).idempotentReplayed == nil)
            #expect(try await herald.sendSignedHook(body: body).idempotentReplayed == "true")
            herald.clock.advance(by: 24 * 3600 + 60)
            #expect(try await herald.server.pruner.pruneOnce() >= 2, "the signature and the key record")
            let later = try await herald.sendSignedHook(body: body)
            #expect(later.idempotentReplayed == nil, "\(later.text)")
            #expect(herald.inbox(HookFixture.token).count == 2)
        }
    }
}
