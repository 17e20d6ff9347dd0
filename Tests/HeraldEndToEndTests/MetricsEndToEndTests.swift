import Foundation
import HeraldTestSupport
import Testing

/// `/metrics` after a scripted run through the real binary: each family moved as it should.
@Suite("Metrics", .serialized)
struct MetricsEndToEndTests {
    @Test("after schedule, fire, a push answered 410, events and a wake, every metrics family moved as it should")
    func scriptedRunMovesEveryFamily() async throws {
        try await withScratch { scratch in
            try await withFeedbackListener(in: scratch) { listener in
                var yaml = SandboxedHerald.configuration(in: scratch, feedbackURL: listener.url)
                yaml += "hooks:\n  rateBurst: 1\n  ratePerSecond: 0.01\n"
                try await withSandboxedHerald(yaml: yaml, in: scratch) { herald in
                    let app = WebhookE2E.app
                    let (live, dead) = (WebhookE2E.token(1), WebhookE2E.token(2))
                    let device = "/v1/apps/\(app)/devices/phone"
                    let put = try await herald.api("PUT", device, json: [
                        "timeZone": "Europe/Paris", "token": live, "backgroundModes": ["remote-notification"],
                    ])
                    try #require(put.status == 200 || put.status == 201, "\(put.text)")

                    // Schedule: one pending notification, read from the store at scrape time.
                    let scheduled = try await herald.api("POST", device + "/notifications", json: [
                        "id": "soon", "fireDate": utc(Date().addingTimeInterval(3)), "alert": ["body": "soon"],
                    ])
                    try #require(scheduled.status == 201, "\(scheduled.text)")
                    let before = try await scrape(herald)
                    #expect(before.value("herald_pending_notifications") == 1)

                    // Fire: delivered by push; counted by channel and outcome, with its lateness.
                    let fired = await pollUntil(timeout: .seconds(20), interval: .milliseconds(200)) {
                        ((try? await scrape(herald))?.value("herald_occurrences_fired_total", ["channel": "push", "outcome": "sent"]) ?? 0) >= 1
                    }
                    #expect(fired, "the occurrence fired and was pushed")

                    // A push answered 410 Unregistered: its token is invalidated and feedback goes out.
                    try await herald.unregister([dead])
                    let refused = try await herald.push(to: dead)
                    #expect(refused.int("status") == 410)
                    let feedbackSent = await pollUntil(timeout: .seconds(10), interval: .milliseconds(100)) { !listener.received.isEmpty }
                    #expect(feedbackSent)

                    // The device is suspended; events queue and ask for a wake push; then it wakes.
                    for state in ["background", "suspended"] {
                        let reply = try await herald.api("PUT", device + "/state", json: ["state": state])
                        try #require(reply.status == 200, "\(reply.text)")
                    }
                    let events = try await herald.api("POST", device + "/events", json: ["events": [
                        ["kind": "batteryLevel", "value": 0.5], ["kind": "orientation", "value": "faceUp"],
                    ]])
                    try #require(events.status == 200, "\(events.text)")
                    // Store gauges are read at most every 2 s, however often /metrics is scraped.
                    let queued = await pollUntil(timeout: .seconds(10), interval: .milliseconds(200)) {
                        ((try? await scrape(herald))?.value("herald_coalescer_backlog", ["kind": "batteryLevel"]) ?? 0) == 1
                    }
                    #expect(queued, "the queued battery level shows in the backlog gauge")
                    let wakePushed = await pollUntil(timeout: .seconds(10), interval: .milliseconds(100)) {
                        ((try? await scrape(herald))?.value("herald_wake_pushes_total", ["result": "sent"]) ?? 0) >= 1
                    }
                    #expect(wakePushed)
                    let woke = try await herald.api("POST", device + "/wake", json: ["state": "active"])
                    try #require(woke.status == 200, "\(woke.text)")
                    // Handed over; the backlog is gone once the client acknowledges it.
                    let handed = try #require(woke.json.int("backlogSeq"), "\(woke.text)")
                    let acknowledged = try await herald.api("POST", device + "/inbox/ack", json: ["upTo": handed])
                    try #require(acknowledged.status == 200, "\(acknowledged.text)")

                    // A route that does not exist, and a hook past its rate limit.
                    _ = try await herald.api("GET", "/v1/nothing-here")
                    for _ in 0..<3 { _ = try await herald.api("POST", "/v1/hooks/missing", json: [:], key: nil) }

                    let settled = await eventually(timeout: .seconds(10), interval: .milliseconds(200)) { () -> PrometheusScrape? in
                        guard let scrape = try? await scrape(herald),
                              scrape.has("herald_pending_notifications"), scrape.value("herald_pending_notifications") == 0,
                              scrape.value("herald_coalescer_backlog", ["kind": "batteryLevel"]) == 0 else { return nil }
                        return scrape
                    }
                    let after = try #require(settled, "the store gauges settle: nothing pending, the backlog handed over")
                    let pushes = ["app": app, "push_type": "alert"]
                    #expect(after.value("herald_pushes_total", pushes.merging(["outcome": "accepted", "reason": "none"]) { $1 }) >= 1)
                    #expect(after.value("herald_pushes_total", pushes.merging(["outcome": "unregistered", "reason": "Unregistered"]) { $1 }) == 1)
                    #expect(after.value("herald_pushes_total", ["app": app, "push_type": "background", "outcome": "accepted"]) >= 1,
                            "the wake push")
                    #expect(after.value("herald_push_duration_seconds_count", ["app": app]) >= 3)
                    #expect(after.has("herald_push_retries_total", ["app": app]) || after.value("herald_push_retries_total") == 0)
                    #expect(after.value("herald_apns_connects_total", ["app": app, "result": "ok"]) >= 1)
                    #expect(after.value("herald_apns_open_connections", ["app": app]) >= 1)
                    #expect(after.value("herald_provider_tokens_signed_total") >= 1)

                    #expect(after.value("herald_occurrences_fired_total", ["channel": "push", "outcome": "sent"]) == 1)
                    #expect(after.value("herald_fire_lateness_seconds_count") == 1)
                    #expect(after.has("herald_pending_notifications") && after.value("herald_pending_notifications") == 0)
                    #expect(after.has("herald_fire_log_backlog") && after.value("herald_fire_log_backlog") == 0)
                    #expect(after.has("herald_deliveries_in_flight") && after.value("herald_deliveries_in_flight") == 0)

                    #expect(after.value("herald_coalescer_events_total", ["disposition": "queued"]) == 2)
                    #expect(after.value("herald_coalescer_backlog", ["kind": "batteryLevel"]) == 0, "handed over by the wake and acknowledged")

                    #expect(after.value("herald_http_requests_total",
                                        ["route": "/v1/apps/{app}/devices/{device}", "method": "PUT", "status": "2xx"]) == 1)
                    #expect(after.value("herald_http_requests_total", ["route": "unmatched", "status": "4xx"]) >= 1)
                    #expect(after.value("herald_http_request_duration_seconds_count", ["route": "/v1/push", "method": "POST"]) == 1)
                    #expect(after.value("herald_http_rate_limited_total", ["scope": "hook"]) >= 1)
                    #expect(!after.series.keys.contains { $0.contains(live) || $0.contains(dead) }, "no device token in a label")

                    #expect(after.value("herald_feedback_delivery_attempts_total", ["result": "delivered"]) >= 1)
                    #expect(after.has("herald_feedback_outbox_depth", ["state": "parked"]))
                }
            }
        }
    }

    private func scrape(_ herald: SandboxedHerald) async throws -> PrometheusScrape {
        // With API keys configured, /metrics needs an admin (or metrics) key.
        let reply = try await herald.api("GET", "/metrics")
        try #require(reply.status == 200, "\(reply.text)")
        return PrometheusScrape(reply.text)
    }
}

/// The samples of a Prometheus text exposition, by name and labels.
struct PrometheusScrape {
    /// `name{label="value",...}` as written, to its value.
    let series: [String: Double]
    private let samples: [(name: String, labels: [String: String], value: Double)]

    init(_ text: String) {
        var samples: [(String, [String: String], Double)] = []
        var series: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let key = String(line[..<space])
            series[key] = value
            var labels: [String: String] = [:]
            let name: String
            if let open = key.firstIndex(of: "{"), key.hasSuffix("}") {
                name = String(key[..<open])
                let body = key[key.index(after: open)..<key.index(before: key.endIndex)]
                // Label values here never hold quotes or commas (routes, kinds, app ids).
                for pair in body.split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { labels[String(parts[0])] = String(parts[1]).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                }
            } else {
                name = key
            }
            samples.append((name, labels, value))
        }
        self.series = series
        self.samples = samples
    }

    /// Whether a sample named `name` with at least these labels exists.
    func has(_ name: String, _ labels: [String: String] = [:]) -> Bool {
        samples.contains { Self.matches($0, name, labels) }
    }

    /// The sum over every sample named `name` that has at least these labels; 0 when none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.filter { Self.matches($0, name, labels) }.reduce(0) { $0 + $1.value }
    }

    private static func matches(_ sample: (name: String, labels: [String: String], value: Double), _ name: String,
                                _ labels: [String: String]) -> Bool {
        sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
    }
}
