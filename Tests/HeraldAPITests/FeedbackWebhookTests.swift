import Foundation
import HeraldCrypto
import HeraldSandbox
import HeraldTestSupport
import Testing

// "Outbound: feedback events, such as invalid tokens and delivery results, are POSTed, signed the
// same way, and retried." The outbox behind them is bounded and says when it is full.

@Suite("Feedback webhooks")
struct FeedbackWebhookTests {
    @Test("A token APNs calls Unregistered raises token.invalid, POSTed to every receiver and signed with feedback.secret")
    func tokenInvalidReachesEveryReceiver() async throws {
        try await withFeedbackReceiver { receiver, base in
            var options = feedbackOptions(["\(base)/first", "\(base)/second"])
            options.faults = SandboxFaults(unregistered: [guardToken(410)])
            try await withGuardedHerald(options: options) { herald in
                try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
                let result = try await herald.push(to: guardToken(410))
                #expect(result["status"].int == 410)
                #expect(result["reason"].string == "Unregistered")

                let arrived = await pollUntil {
                    !receiver.received(at: "/first").isEmpty && !receiver.received(at: "/second").isEmpty
                }
                try #require(arrived, "token.invalid did not reach both receivers")
                for path in ["/first", "/second"] {
                    let requests = receiver.received(at: path)
                    #expect(requests.count == 1, "\(path) got \(requests.count) requests")
                    let request = try #require(requests.first)
                    expectSignedFeedback(request, type: "token.invalid")
                    #expect(request.json["app"].string == GuardApps.alarm)
                    #expect(request.json["data"]["token"].string == guardToken(410))
                    #expect(request.json["data"]["reason"].string == "Unregistered")
                    // Signed with feedback.secret, and with nothing else.
                    #expect(throws: WebhookSignature.Refusal.invalidSignature) {
                        try WebhookSignature.verify(header: request.header("Herald-Signature"), body: Array(request.body),
                                                    secrets: ["not-the-feedback-secret-00"],
                                                    now: Int(Date().timeIntervalSince1970))
                    }
                }
                #expect(receiver.received(at: "/first")[0].json["id"] == receiver.received(at: "/second")[0].json["id"],
                        "both receivers get the same event id")
                let delivered = await pollUntil {
                    ((try? await herald.outbox(state: "delivered").messages.count) ?? 0) == 2
                }
                #expect(delivered, "the outbox shows both messages delivered")
                // The dead token is never pushed to again, and raises nothing more.
                let again = try await herald.push(to: guardToken(410))
                #expect(again["status"].int == 410)
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.received.count == 2)
            }
        }
    }

    @Test("A receiver that keeps failing is retried with backoff, parked after feedback.maxAttempts, and retried on request")
    func retriedThenParkedThenRetried() async throws {
        try await withFeedbackReceiver { receiver, base in
            receiver.status = 500
            var options = feedbackOptions(["\(base)/hook"], maxAttempts: 2)
            options.faults = SandboxFaults(unregistered: [guardToken(410)])
            try await withGuardedHerald(options: options) { herald in
                try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
                try await herald.push(to: guardToken(410))

                let parked = await pollUntil(timeout: .seconds(6)) {
                    ((try? await herald.outbox(state: "parked").messages.count) ?? 0) == 1
                }
                try #require(parked, "the message was not parked after 2 failed attempts")
                let attempts = receiver.received
                #expect(attempts.count == 2, "maxAttempts 2 means two attempts, got \(attempts.count)")
                if attempts.count == 2 {
                    let gap = attempts[1].at - attempts[0].at
                    #expect(gap >= .milliseconds(450), "the retry came \(gap) after the first attempt: no backoff")
                    #expect(gap <= .milliseconds(3000), "the first retry waited \(gap); the initial backoff is 1 s")
                    #expect(attempts[0].body == attempts[1].body, "a retry sends the same event")
                }
                let message = try #require(try await herald.outbox(state: "parked").messages.first)
                #expect(message["attempts"].int == 2)
                #expect(message["lastError"].string?.contains("500") == true, "\(message)")
                #expect(message["state"].string == "parked")
                #expect(try await herald.outbox(state: "pending").messages.isEmpty)
                // Parked means left alone.
                try await Task.sleep(for: .milliseconds(600))
                #expect(receiver.received.count == 2, "a parked message was attempted again")

                // The receiver is fixed; an operator puts the message back in line.
                receiver.status = 200
                let id = try #require(message["id"].int)
                let retry = try await herald.send(.post, "/v1/feedback/outbox/\(id)/retry")
                #expect(retry.status == .accepted, "\(retry.text)")
                let delivered = await pollUntil {
                    ((try? await herald.outbox(state: "delivered").messages.count) ?? 0) == 1
                }
                #expect(delivered, "the retried message was not delivered")
                #expect(receiver.received.count == 3)
                if let last = receiver.received.last {
                    expectSignedFeedback(last, type: "token.invalid")
                }
                // Only a parked message can be retried.
                let again = try await herald.send(.post, "/v1/feedback/outbox/\(id)/retry")
                expectError(again, status: .notFound, reason: "messageNotFound")
                let unknown = try await herald.send(.post, "/v1/feedback/outbox/999999/retry")
                expectError(unknown, status: .notFound, reason: "messageNotFound")
            }
        }
    }

    @Test("A receiver's full share says so (full, fullReceivers); its events past the limit wait, and go out once there is room")
    func fullOutboxLosesNothing() async throws {
        try await withFeedbackReceiver { receiver, base in
            receiver.status = 503
            // Many attempts: the first message keeps waiting for a retry, so it fills the share of 1.
            var options = feedbackOptions(["\(base)/hook"], maxAttempts: 50, outboxLimit: 1)
            options.faults = SandboxFaults(unregistered: [guardToken(1), guardToken(2)])
            try await withGuardedHerald(options: options) { herald in
                try await herald.registerApp(GuardApps.alarm, token: guardToken(99))
                try await herald.push(to: guardToken(1))
                let attempted = await pollUntil { receiver.received.count >= 1 }
                try #require(attempted)
                try await herald.push(to: guardToken(2))
                let full = await pollUntil { (try? await herald.outbox().full) == true }
                #expect(full, "the receiver holds its limit of waiting messages but the outbox does not say it is full")
                let listing = try await herald.get("/v1/feedback/outbox")
                #expect(listing.json["fullReceivers"][0].string == "\(base)/hook", "\(listing.text)")
                #expect(try await herald.outbox().messages.count == 1, "the receiver's share grew past feedback.outboxLimit")

                let failedAttempts = receiver.received.count
                receiver.status = 200
                let both = await pollUntil(timeout: .seconds(10)) {
                    Set(receiver.received.dropFirst(failedAttempts).filter { $0.header("Herald-Event") == "token.invalid" }
                        .compactMap { $0.json["data"]["token"].string }) == [guardToken(1), guardToken(2)]
                }
                #expect(both, "the event that waited for room was never delivered: \(receiver.received.map { $0.json["data"]["token"] })")
                let emptied = await pollUntil(timeout: .seconds(10)) { (try? await herald.outbox().full) == false }
                #expect(emptied, "the outbox still says it is full")
            }
        }
    }

    @Test("Limits are per receiver: a dead receiver's parked and waiting messages never hold back a live one", arguments: 1...3)
    func deadReceiverDoesNotBlockLiveOne(round: Int) async throws {
        try await withFeedbackReceiver { live, liveBase in
            try await withFeedbackReceiver { dead, deadBase in
                dead.status = 500
                var options = feedbackOptions(["\(deadBase)/dead", "\(liveBase)/live"], maxAttempts: 1, outboxLimit: 2)
                let tokens = (0..<6).map { guardToken(700 + $0) }
                options.faults = SandboxFaults(unregistered: tokens)
                try await withGuardedHerald(options: options) { herald in
                    try await herald.registerApp(GuardApps.alarm, token: guardToken(99))
                    for token in tokens { try await herald.push(to: token) }
                    let all = await pollUntil(timeout: .seconds(10)) {
                        Set(live.received.compactMap { $0.json["data"]["token"].string }) == Set(tokens)
                    }
                    #expect(all, "round \(round): the live receiver got \(live.received.count) of \(tokens.count) events")
                    // The dead receiver's messages are parked, one per event: none was dropped.
                    let parked = await pollUntil(timeout: .seconds(10)) {
                        ((try? await herald.outbox(state: "parked").messages.count) ?? 0) == tokens.count
                    }
                    #expect(parked, "the dead receiver's messages were not all parked")
                    #expect(try await herald.outbox().full == false)
                }
            }
        }
    }

    @Test("Receivers get only the event types in feedback.events")
    func onlyConfiguredEventTypes() async throws {
        try await withFeedbackReceiver { receiver, base in
            var options = feedbackOptions(["\(base)/hook"], events: [.deliveryFailed, .deliverySucceeded])
            options.faults = SandboxFaults(unregistered: [guardToken(410)])
            try await withGuardedHerald(options: options) { herald in
                try await herald.registerApp(GuardApps.alarm, token: guardToken(1))
                let result = try await herald.push(to: guardToken(410))
                #expect(result["status"].int == 410)
                try await Task.sleep(for: .milliseconds(500))
                #expect(receiver.received.isEmpty, "token.invalid went out though feedback.events leaves it out")
                #expect(try await herald.outbox().messages.isEmpty)
            }
        }
    }

    @Test("The outbox listing refuses an unknown state: 400 invalidState")
    func outboxStateFilter() async throws {
        try await withGuardedHerald { herald in
            let reply = try await herald.get("/v1/feedback/outbox?state=lost")
            expectError(reply, status: .badRequest, reason: "invalidState")
            for state in ["pending", "delivered", "parked"] {
                #expect(try await herald.get("/v1/feedback/outbox?state=\(state)").status == .ok)
            }
        }
    }
}
