import Foundation
import HeraldTestSupport
import Testing

// Live Activities on a schedule and iOS 18 broadcast channels, through the real binary against
// the sandbox's APNs (device pushes, channel management and broadcasts). The demo app signs with
// the sandbox's dev token key: Live Activities need token auth.

enum LiveActivityE2E {
    static let attributesType = "MatchAttributes"
    static let pushToStart = WebhookE2E.token(0x5000)
    static let activityToken = WebhookE2E.token(0x5001)
}

extension SandboxedHerald {
    /// An iOS installation with a push-to-start token for the match attributes.
    func registerLiveActivityDevice(_ device: String, timeZone: String = "Europe/Paris") async throws {
        let reply = try await api("PUT", "/v1/apps/\(WebhookE2E.app)/devices/\(device)", json: [
            "timeZone": timeZone, "token": WebhookE2E.token(0x4fff),
            "pushToStartTokens": [LiveActivityE2E.attributesType: LiveActivityE2E.pushToStart],
        ])
        try #require(reply.status == 201 || reply.status == 200, "PUT device: \(reply.text)")
    }

    func registerActivity(_ activity: String, on device: String, token: String = LiveActivityE2E.activityToken) async throws {
        let reply = try await api("PUT", "/v1/apps/\(WebhookE2E.app)/devices/\(device)/activities/\(activity)",
                                  json: ["token": token, "attributesType": LiveActivityE2E.attributesType])
        try #require(reply.status == 201 || reply.status == 200, "PUT activity: \(reply.text)")
    }

    /// Schedules a Live Activity push on a device (or, with `channel`, a broadcast); the reply.
    func scheduleLiveActivity(_ liveActivity: [String: Any], id: String, fireDate: String, device: String = "phone",
                              channel: String? = nil, timeZone: String? = nil, repeat rule: [String: Any]? = nil) async throws -> KeyedReply {
        var body: [String: Any] = ["id": id, "fireDate": fireDate, "liveActivity": liveActivity]
        if let timeZone { body["timeZone"] = timeZone }
        if let rule { body["repeat"] = rule }
        let audience = channel.map { "channels/\($0)" } ?? "devices/\(device)"
        return try await api("POST", "/v1/apps/\(WebhookE2E.app)/\(audience)/notifications", json: body)
    }

    /// The Live Activity pushes the sandbox took for `token`, oldest first.
    func liveActivityPushes(_ token: String) async throws -> [JSONObject] {
        try await inbox(token).filter { $0.string("pushType") == "liveactivity" }
    }

    /// What the sandbox's APNs took as broadcasts on channel `id`.
    func broadcasts(_ channelID: String) async throws -> [JSONObject] {
        let escaped = channelID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? channelID
        let reply = try await keyedHTTP("GET", sandboxAdmin + "/broadcasts?channel=\(escaped)")
        try #require(reply.status == 200, "GET broadcasts: \(reply.text)")
        return reply.json.objects("broadcasts")
    }
}

extension JSONObject {
    /// `payload.aps` of a sandbox inbox entry.
    var aps: JSONObject? { object("payload")?.object("aps") }

    /// A sandbox inbox entry's `receivedAt`: RFC 3339 with milliseconds, or without them on a
    /// whole second.
    var receivedAt: Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return string("receivedAt").flatMap { formatter.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) }
    }
}

/// An instant with milliseconds, for fire dates less than a second away.
private func utcPrecise(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
}

/// The match's content state: the score.
private func score(_ home: Int, _ away: Int) -> [String: Any] { ["home": home, "away": away] }

@Suite("Live Activities and broadcast channels end to end")
struct LiveActivitiesEndToEndTests {
    @Test("a Live Activity starts, updates twice and ends on its instants, in the device's zone across a DST change")
    func startUpdateEndAcrossDST() async throws {
        // The server's clock reads 2027-03-28 00:59:45 UTC (01:59:45 in Paris): at 01:00 UTC,
        // Paris moves from 02:00 CET to 03:00 CEST. Floating wall-clock times on both sides.
        let serverStart = try #require(ISO8601DateFormatter().date(from: "2027-03-28T00:59:45Z"))
        let skew = serverStart.timeIntervalSinceNow
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch),
                                          environment: ["HERALD_TEST_CLOCK_SKEW_MS": String(Int(skew * 1000))], in: scratch) { herald in
                try await herald.registerLiveActivityDevice("phone")
                try await herald.registerActivity("match-42", on: "phone")
                let timetable: [(id: String, wallClock: String, instant: String, liveActivity: [String: Any])] = [
                    ("kickoff", "2027-03-28T01:59:55", "2027-03-28T00:59:55Z",
                     ["event": "start", "attributesType": LiveActivityE2E.attributesType,
                      "attributes": ["home": "Lyon", "away": "Nantes"], "contentState": score(0, 0),
                      "alert": ["title": "Kick-off", "body": "Lyon v Nantes"], "relevanceScore": 0.8]),
                    ("goal", "2027-03-28T03:00:00", "2027-03-28T01:00:00Z",
                     ["event": "update", "activity": "match-42", "contentState": score(1, 0),
                      "staleDate": "2027-03-28T02:00:00Z"]),
                    ("equaliser", "2027-03-28T03:00:03", "2027-03-28T01:00:03Z",
                     ["event": "update", "activity": "match-42", "contentState": score(1, 1)]),
                    ("whistle", "2027-03-28T03:00:06", "2027-03-28T01:00:06Z",
                     ["event": "end", "activity": "match-42", "contentState": score(1, 1),
                      "dismissalDate": "2027-03-28T03:00:00Z"]),
                ]
                for entry in timetable {
                    let reply = try await herald.scheduleLiveActivity(entry.liveActivity, id: entry.id, fireDate: entry.wallClock,
                                                                      timeZone: "floating")
                    try #require(reply.status == 201, "schedule \(entry.id): \(reply.text)")
                    #expect(reply.json.string("nextFireDate") == entry.instant, "\(entry.id) is read in Paris time")
                    #expect(reply.json.object("liveActivity")?.string("event") == entry.liveActivity["event"] as? String)
                }
                let arrived = await eventually(timeout: .seconds(40), interval: .milliseconds(200)) { () -> ([JSONObject], [JSONObject])? in
                    guard let start = try? await herald.liveActivityPushes(LiveActivityE2E.pushToStart),
                          let updates = try? await herald.liveActivityPushes(LiveActivityE2E.activityToken),
                          start.count >= 1, updates.count >= 3 else { return nil }
                    return (start, updates)
                }
                let (starts, updates) = try #require(arrived, "the start and three pushes to the activity arrived")
                #expect(starts.count == 1 && updates.count == 3, "each occurrence once")
                let pushes = [starts[0]] + updates
                for (push, entry) in zip(pushes, timetable) {
                    let instant = try #require(ISO8601DateFormatter().date(from: entry.instant))
                    let aps = try #require(push.aps)
                    #expect(aps.int("timestamp") == Int(instant.timeIntervalSince1970), "\(entry.id): aps.timestamp is the occurrence's instant")
                    #expect(aps.string("event") == entry.liveActivity["event"] as? String)
                    #expect(push.string("topic") == WebhookE2E.app + ".push-type.liveactivity")
                    #expect(push.string("collapseId") == "\(entry.id)#0")
                    // On the server's clock: on time, never early.
                    let received = try #require(push.receivedAt).addingTimeInterval(skew)
                    let lateness = received.timeIntervalSince(instant)
                    #expect(lateness >= 0 && lateness < 1.5, "\(entry.id) arrived \(lateness) s after its instant")
                }
                let start = try #require(starts.first?.aps)
                #expect(start.string("attributes-type") == LiveActivityE2E.attributesType)
                #expect(start.object("attributes")?.string("home") == "Lyon")
                #expect(start.double("relevance-score") == 0.8)
                #expect(updates[0].aps?.object("content-state")?.int("home") == 1)
                #expect(updates[0].aps?.int("stale-date") == 1_806_199_200, "stale-date in integer seconds")
                #expect(updates[2].aps?.int("dismissal-date") == 1_806_202_800)
                let metrics = try await keyedHTTP("GET", herald.baseURL + "/metrics", key: WebhookE2E.adminKey)
                #expect(metrics.text.contains(#"type="liveactivity""#), "herald_pushes_total counts Live Activity pushes")
                // The sandbox's timeline of the activity's token: update, update, end.
                let timeline = try await keyedHTTP("GET", herald.sandboxAdmin + "/activities/\(LiveActivityE2E.activityToken)")
                #expect(timeline.json.objects("events").map { $0.string("event") ?? "" } == ["update", "update", "end"])
            }
        }
    }

    @Test("a repeating update keeps the activity fresh: one push per occurrence, each stamped with its instant")
    func repeatingUpdate() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerLiveActivityDevice("phone")
                try await herald.registerActivity("timer-1", on: "phone")
                // Anchored 57 s ago, every minute: occurrences 3 s and 63 s from now.
                let first = wholeSecond(after: 3)
                let reply = try await herald.scheduleLiveActivity(
                    ["event": "update", "activity": "timer-1", "contentState": ["remaining": 10]], id: "countdown",
                    fireDate: utc(first.addingTimeInterval(-60)), repeat: ["every": 1, "unit": "minute"])
                try #require(reply.status == 201, "\(reply.text)")
                let pushes = await eventually(timeout: .seconds(80), interval: .milliseconds(250)) { () -> [JSONObject]? in
                    guard let pushes = try? await herald.liveActivityPushes(LiveActivityE2E.activityToken), pushes.count >= 2 else { return nil }
                    return pushes
                }
                let updates = try #require(pushes, "two occurrences of the repeating update")
                for (index, expected) in [first, first.addingTimeInterval(60)].enumerated() {
                    #expect(updates[index].aps?.int("timestamp") == Int(expected.timeIntervalSince1970))
                    #expect(updates[index].string("collapseId") == "countdown#\(index + 1)")
                    let received = try #require(updates[index].receivedAt)
                    let lateness = received.timeIntervalSince(expected)
                    #expect(lateness >= 0 && lateness < 1.5, "occurrence \(index + 1) arrived \(lateness) s after its instant")
                }
            }
        }
    }

    @Test("cancel wins: a Live Activity update cancelled (204) before its instant is never sent")
    func cancelWins() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerLiveActivityDevice("phone")
                try await herald.registerActivity("match-7", on: "phone")
                for round in 0..<5 {
                    let reply = try await herald.scheduleLiveActivity(
                        ["event": "update", "activity": "match-7", "contentState": score(round, 0)], id: "goal-\(round)",
                        fireDate: utcPrecise(Date().addingTimeInterval(0.3)))
                    try #require(reply.status == 201, "\(reply.text)")
                    let cancel = try await herald.api("DELETE", "/v1/apps/\(WebhookE2E.app)/devices/phone/notifications/goal-\(round)")
                    if cancel.status == 204 { continue }
                    // Too late to cancel: it fired, and so it may be delivered.
                    #expect(cancel.status == 404, "\(cancel.text)")
                }
                try await Task.sleep(for: .seconds(2))
                let deliveries = try await herald.deliveries("phone")
                let delivered = Set(deliveries.compactMap { $0.string("notificationId") })
                let sent = try await herald.liveActivityPushes(LiveActivityE2E.activityToken)
                #expect(sent.count == delivered.count, "only fired occurrences were sent")
                for push in sent {
                    let id = String(push.string("collapseId")?.split(separator: "#").first ?? "")
                    #expect(delivered.contains(id), "\(id) was sent but its cancel was answered 204")
                }
            }
        }
    }

    @Test("an end for an activity forgotten before its instant is not sent, and is recorded as activityGone")
    func endForForgottenActivity() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerLiveActivityDevice("phone")
                try await herald.registerActivity("ride-9", on: "phone")
                let reply = try await herald.scheduleLiveActivity(["event": "end", "activity": "ride-9"], id: "arrived",
                                                                  fireDate: utc(wholeSecond(after: 2)))
                try #require(reply.status == 201, "\(reply.text)")
                // The device's status shows the activity and its next event.
                let status = try await herald.api("GET", "/v1/status/apps/\(WebhookE2E.app)/devices/phone")
                let activity = status.json.objects("activities").first { $0.string("activity") == "ride-9" }
                #expect(activity?.strings("nextEvents").first?.hasPrefix("end at ") == true, "\(status.text)")
                #expect(status.json.strings("pushToStartTypes") == [LiveActivityE2E.attributesType])
                let forget = try await herald.api("DELETE", "/v1/apps/\(WebhookE2E.app)/devices/phone/activities/ride-9")
                #expect(forget.status == 204)
                let recorded = await eventually(timeout: .seconds(10)) { () -> JSONObject? in
                    try? await herald.deliveries("phone").first {
                        $0.string("notificationId") == "arrived" && $0.string("outcome") != "pending"
                    }
                }
                let delivery = try #require(recorded, "the occurrence fired and was recorded")
                #expect(delivery.string("outcome") == "activityGone")
                #expect(try await herald.liveActivityPushes(LiveActivityE2E.activityToken).isEmpty, "nothing was sent")
            }
        }
    }

    @Test("refused at schedule time with a 422: unknown activity, start without attributes, payload over the limit, android")
    func refusedAtScheduleTime() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerLiveActivityDevice("phone")
                try await herald.registerAndroid("pixel", fcmToken: "fcm-pixel-0002")
                let later = utc(Date().addingTimeInterval(3600))
                let cases: [(String, [String: Any], String)] = [
                    ("unknownActivity", ["event": "update", "activity": "nope", "contentState": score(0, 0)], "phone"),
                    ("missingAttributes", ["event": "start", "attributesType": LiveActivityE2E.attributesType,
                                           "contentState": score(0, 0)], "phone"),
                    ("missingContentState", ["event": "update", "activity": "x"], "phone"),
                    ("payloadTooLarge", ["event": "start", "attributesType": LiveActivityE2E.attributesType,
                                         "attributes": ["blob": String(repeating: "x", count: 5000)], "contentState": score(0, 0)], "phone"),
                    ("liveActivityNotForPlatform", ["event": "start", "attributesType": LiveActivityE2E.attributesType,
                                                    "attributes": ["a": 1], "contentState": score(0, 0)], "pixel"),
                ]
                for (reason, liveActivity, device) in cases {
                    let reply = try await herald.scheduleLiveActivity(liveActivity, id: "bad", fireDate: later, device: device)
                    #expect(reply.status == 422, "\(reason): \(reply.text)")
                    #expect(reply.json.object("error")?.string("reason") == reason, "\(reply.text)")
                }
                let stored = try await herald.api("GET", "/v1/apps/\(WebhookE2E.app)/devices/phone/notifications")
                #expect(stored.json.objects("notifications").isEmpty, "nothing refused was stored")
            }
        }
    }

    @Test("a channel is created on APNs, broadcasts once at its instant, and its deletion cancels what it had scheduled")
    func channelCreateBroadcastDelete() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let created = try await herald.api("POST", "/v1/apps/\(WebhookE2E.app)/channels",
                                                   json: ["name": "match-42", "messageStoragePolicy": 1])
                try #require(created.status == 201, "\(created.text)")
                let channelID = try #require(created.json.string("apnsChannelId"))
                #expect(created.json.int("messageStoragePolicy") == 1)
                let duplicate = try await herald.api("POST", "/v1/apps/\(WebhookE2E.app)/channels", json: ["name": "match-42"])
                #expect(duplicate.status == 409)
                let refreshed = try await herald.api("GET", "/v1/apps/\(WebhookE2E.app)/channels/match-42?refresh=true")
                #expect(refreshed.json.bool("onApns") == true && refreshed.json.int("apnsMessageStoragePolicy") == 1, "\(refreshed.text)")
                let listed = try await herald.api("GET", "/v1/apps/\(WebhookE2E.app)/channels")
                #expect(listed.json.objects("channels").map { $0.string("name") } == ["match-42"])

                let instant = wholeSecond(after: 2)
                let broadcast = try await herald.scheduleLiveActivity(["event": "update", "contentState": score(2, 1)], id: "goal",
                                                                      fireDate: utc(instant), channel: "match-42")
                try #require(broadcast.status == 201, "\(broadcast.text)")
                let later = try await herald.scheduleLiveActivity(["event": "end", "contentState": score(2, 1)], id: "whistle",
                                                                  fireDate: utc(Date().addingTimeInterval(3600)), channel: "match-42")
                try #require(later.status == 201, "\(later.text)")
                let start = try await herald.scheduleLiveActivity(["event": "start", "attributesType": "T", "attributes": ["a": 1],
                                                                   "contentState": score(0, 0)], id: "start",
                                                                  fireDate: utc(Date().addingTimeInterval(3600)), channel: "match-42")
                #expect(start.status == 422, "a channel carries update and end: \(start.text)")

                let sent = await eventually(timeout: .seconds(10)) { () -> [JSONObject]? in
                    guard let sent = try? await herald.broadcasts(channelID), !sent.isEmpty else { return nil }
                    return sent
                }
                let broadcasts = try #require(sent, "the broadcast reached the channel")
                try await Task.sleep(for: .milliseconds(500))
                #expect(try await herald.broadcasts(channelID).count == 1, "sent once")
                #expect(broadcasts[0].int("timestamp") == Int(instant.timeIntervalSince1970))
                #expect(broadcasts[0].string("event") == "update")
                let outcome = await eventually { () -> String? in
                    let deliveries = try? await herald.api("GET", "/v1/apps/\(WebhookE2E.app)/channels/match-42/deliveries")
                    return deliveries?.json.objects("deliveries").first?.string("outcome").flatMap { $0 == "pending" ? nil : $0 }
                }
                #expect(outcome == "sent", "the broadcast's delivery is recorded as sent")
                // The app's status lists the channel with its next broadcast; metrics count broadcasts.
                let status = try await herald.api("GET", "/v1/status/apps/\(WebhookE2E.app)")
                let line = status.json.objects("channels").first { $0.string("name") == "match-42" }
                #expect(line?.strings("nextBroadcasts").first?.hasPrefix("end at ") == true, "\(status.text)")
                #expect(status.json.objects("devices").allSatisfy { $0.string("device")?.hasPrefix("channel:") == false })
                let metrics = try await keyedHTTP("GET", herald.baseURL + "/metrics", key: WebhookE2E.adminKey)
                #expect(metrics.text.contains(#"type="broadcast""#), "herald_pushes_total counts broadcasts")

                let deleted = try await herald.api("DELETE", "/v1/apps/\(WebhookE2E.app)/channels/match-42")
                #expect(deleted.status == 204, "\(deleted.text)")
                #expect(try await herald.api("GET", "/v1/apps/\(WebhookE2E.app)/channels/match-42").status == 404)
                #expect(try await herald.api("GET", "/v1/apps/\(WebhookE2E.app)/channels/match-42/notifications/whistle").status == 404,
                        "its scheduled broadcasts were cancelled")
                let onApns = try await keyedHTTP("GET", herald.sandboxAdmin + "/channels/\(WebhookE2E.app)")
                #expect(onApns.json.objects("channels").isEmpty, "deleted on APNs too: \(onApns.text)")
            }
        }
    }

    @Test("POST /v1/push sends a Live Activity start to a device's push-to-start token and a broadcast to a channel now")
    func immediateLiveActivityPush() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerLiveActivityDevice("phone")
                let created = try await herald.api("POST", "/v1/apps/\(WebhookE2E.app)/channels", json: ["name": "news"])
                let channelID = try #require(created.json.string("apnsChannelId"), "\(created.text)")
                let reply = try await herald.api("POST", "/v1/push", json: ["notifications": [
                    ["app": WebhookE2E.app, "devices": ["phone"],
                     "liveActivity": ["event": "start", "attributesType": LiveActivityE2E.attributesType,
                                      "attributes": ["home": "A", "away": "B"], "contentState": score(0, 0)]],
                    ["app": WebhookE2E.app, "channel": "news", "liveActivity": ["event": "update", "contentState": score(1, 0)]],
                    ["app": WebhookE2E.app, "devices": ["phone"], "liveActivity": ["event": "update", "activity": "gone",
                                                                                   "contentState": score(0, 0)]],
                ]])
                try #require(reply.status == 200, "\(reply.text)")
                let results = reply.json.objects("results")
                #expect(results.map { $0.int("status") } == [200, 200, 422], "\(reply.text)")
                #expect(results.last?.string("reason") == "unknownActivity")
                #expect(try await herald.liveActivityPushes(LiveActivityE2E.pushToStart).count == 1)
                #expect(try await herald.broadcasts(channelID).count == 1)
            }
        }
    }
    @Test("The README's Live Activity tour through the CLI: a match starts, updates twice and ends on a timetable, plus one broadcast")
    func readmeTour() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let environment = ["HERALD_SERVER": herald.baseURL, "HERALD_API_KEY": WebhookE2E.adminKey,
                                   "HERALD_SANDBOX_ADMIN": herald.sandboxAdmin]
                func run(_ arguments: [String]) async throws -> CommandResult {
                    let result = try await runHerald(arguments, environment: environment, in: scratch)
                    #expect(result.succeeded, "herald \(arguments.joined(separator: " ")): \(result)")
                    return result
                }
                let app = "com.example.alarm"
                let startToken = String(repeating: "cd", count: 32)
                let activityToken = String(repeating: "ef", count: 32)
                _ = try await run(["device", "put", app, "iphone-1", "--time-zone", "Europe/Paris",
                                   "--token", String(repeating: "ab", count: 32), "--push-to-start", "MatchAttributes=\(startToken)"])
                _ = try await run(["activity", "put", app, "iphone-1", "match-42", "--token", activityToken,
                                   "--attributes-type", "MatchAttributes"])
                let base = wholeSecond(after: 2)
                let at = { (seconds: Double) in utc(base.addingTimeInterval(seconds)) }
                let target = ["--app", app, "--device", "iphone-1"]
                _ = try await run(["schedule"] + target + ["--id", "kickoff", "--at", at(0), "--live-activity", "start",
                                   "--attributes-type", "MatchAttributes", "--attributes", #"{"home":"Lyon","away":"Nantes"}"#,
                                   "--content-state", #"{"home":0,"away":0}"#, "--title", "Kick-off", "--body", "Lyon v Nantes"])
                _ = try await run(["schedule"] + target + ["--id", "goal", "--at", at(2), "--live-activity", "update",
                                   "--activity", "match-42", "--content-state", #"{"home":1,"away":0}"#])
                _ = try await run(["schedule"] + target + ["--id", "equaliser", "--at", at(4), "--live-activity", "update",
                                   "--activity", "match-42", "--content-state", #"{"home":1,"away":1}"#])
                _ = try await run(["schedule"] + target + ["--id", "whistle", "--at", at(6), "--live-activity", "end",
                                   "--activity", "match-42", "--content-state", #"{"home":1,"away":1}"#])
                _ = try await run(["channel", "create", app, "match-42", "--message-storage-policy", "1"])
                _ = try await run(["schedule", "--app", app, "--channel", "match-42", "--id", "half-time", "--at", at(3),
                                   "--live-activity", "update", "--content-state", #"{"home":1,"away":0}"#])
                let shown = try await run(["channel", "show", app, "match-42", "--json"])
                let channelID = try #require(try shown.jsonObject().string("apnsChannelId"))
                try await Task.sleep(for: .seconds(max(0, base.addingTimeInterval(7).timeIntervalSinceNow)))

                let started = try await run(["sandbox", "inbox", "--activity", startToken, "--json"])
                #expect(try started.jsonObject().objects("events").map { $0.string("event") } == ["start"], "\(started)")
                let timeline = try await run(["sandbox", "inbox", "--activity", activityToken, "--json"])
                #expect(try timeline.jsonObject().objects("events").map { $0.string("event") } == ["update", "update", "end"], "\(timeline)")
                let table = try await run(["sandbox", "inbox", "--activity", activityToken])
                #expect(table.stdout.contains("update") && table.stdout.contains("end"), "\(table)")
                let broadcasts = try await run(["sandbox", "inbox", "--channel", channelID, "--json"])
                #expect(try broadcasts.jsonObject().objects("broadcasts").count == 1, "\(broadcasts)")
                let listed = try await run(["channel", "list", app])
                #expect(listed.stdout.contains("match-42"), "\(listed)")
                let activities = try await run(["activity", "list", app, "iphone-1"])
                #expect(activities.stdout.contains("match-42"), "\(activities)")
            }
        }
    }
    @Test("A signed hook updates a device's Live Activity and broadcasts on a channel from the event's fields")
    func hookDrivesLiveActivities() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerLiveActivityDevice("phone")
                try await herald.registerActivity("match-42", on: "phone")
                let created = try await herald.api("POST", "/v1/apps/\(WebhookE2E.app)/channels", json: ["name": "match-42"])
                let channelID = try #require(created.json.string("apnsChannelId"), "\(created.text)")
                let client = ["--server", herald.baseURL]
                let admin = ["HERALD_API_KEY": WebhookE2E.adminKey]
                let templates: [(String, [String: Any])] = [
                    ("scores", ["devices": "/user", "title": "Goal", "body": "{/scorer} scores",
                                "liveActivity": ["event": "update", "activity": "match-{/match}", "contentState": "/score"]]),
                    ("broadcasts", ["channel": "match-{/match}", "liveActivity": ["event": "update", "contentState": "/score"]]),
                ]
                for (name, template) in templates {
                    let file = scratch.file("\(name).json")
                    try JSONSerialization.data(withJSONObject: ["app": WebhookE2E.app, "secrets": [WebhookE2E.hookSecret],
                                                                "template": template]).write(to: file)
                    let defined = try await runHerald(["hook", "put", name, "--file", file.path] + client, environment: admin, in: scratch)
                    try #require(defined.succeeded, "\(defined)")
                }
                let event = scratch.file("goal.json")
                try Data(#"{"user": "phone", "match": "42", "scorer": "Lacazette", "score": {"home": 1, "away": 0}}"#.utf8).write(to: event)
                for name in ["scores", "broadcasts"] {
                    let sent = try await runHerald(["hook", "send", name, "--secret", WebhookE2E.hookSecret, "--body", event.path,
                                                    "--json"] + client, in: scratch)
                    #expect(sent.succeeded, "\(sent)")
                    #expect(try sent.jsonObject().objects("results").first?.int("status") == 200, "\(name): \(sent)")
                }
                let updates = try await herald.liveActivityPushes(LiveActivityE2E.activityToken)
                try #require(updates.count == 1, "\(updates.count) updates")
                #expect(updates[0].aps?.object("content-state")?.int("home") == 1)
                #expect(updates[0].aps?.object("alert")?.string("body") == "Lacazette scores")
                let broadcasts = try await herald.broadcasts(channelID)
                #expect(broadcasts.count == 1)
                #expect(broadcasts.first?.object("contentState")?.int("home") == 1, "\(broadcasts)")
            }
        }
    }
    @Test("An activity token APNs calls Unregistered is dropped: not sent to again until the app registers it anew")
    func unregisteredActivityTokenIsDropped() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                try await herald.registerLiveActivityDevice("phone")
                try await herald.registerActivity("match-1", on: "phone")
                try await herald.unregister([LiveActivityE2E.activityToken])
                func update() async throws -> JSONObject {
                    let reply = try await herald.api("POST", "/v1/push", json: ["notifications": [
                        ["app": WebhookE2E.app, "devices": ["phone"],
                         "liveActivity": ["event": "update", "activity": "match-1", "contentState": score(0, 0)]],
                    ]])
                    try #require(reply.status == 200, "\(reply.text)")
                    return try #require(reply.json.objects("results").first)
                }
                #expect(try await update().string("reason") == "Unregistered", "APNs refused it")
                let second = try await update()
                #expect(second.int("status") == 410 && second.string("reason") == "tokenInvalidated", "not sent again: \(second.raw)")
                let cleared = try await keyedHTTP("PUT", herald.sandboxAdmin + "/faults", json: [:])
                #expect(cleared.status == 200, "\(cleared.text)")
                try await herald.registerActivity("match-1", on: "phone")
                #expect(try await update().int("status") == 200, "registered anew, it is used again")
            }
        }
    }
    @Test("Creates of one channel name racing: one 201, the rest 409, and one channel left on APNs (5 rounds of 8)")
    func racingChannelCreates() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                for round in 0..<5 {
                    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                        for _ in 0..<8 {
                            group.addTask {
                                try await herald.api("POST", "/v1/apps/\(WebhookE2E.app)/channels", json: ["name": "race-\(round)"]).status
                            }
                        }
                        return try await group.reduce(into: [Int]()) { $0.append($1) }
                    }
                    #expect(statuses.filter { $0 == 201 }.count == 1 && statuses.filter { $0 == 409 }.count == 7,
                            "round \(round): \(statuses.sorted())")
                }
                let onApns = try await keyedHTTP("GET", herald.sandboxAdmin + "/channels/\(WebhookE2E.app)")
                #expect(onApns.json.objects("channels").count == 5, "one channel per name on APNs: \(onApns.text)")
                let listed = try await herald.api("GET", "/v1/apps/\(WebhookE2E.app)/channels")
                #expect(listed.json.objects("channels").count == 5)
            }
        }
    }
    @Test("An app on certificate auth is refused Live Activities (422 liveActivityNeedsTokenAuth) when scheduling, pushing and creating a channel")
    func certificateAuthRefused() async throws {
        try await withScratch { scratch in
            try await withSandboxedHerald(yaml: SandboxedHerald.configuration(in: scratch), in: scratch) { herald in
                let app = "com.example.certified"
                let text = { (name: String) in try String(contentsOfFile: TestCertificates.path(name), encoding: .utf8) }
                let put = try await herald.api("PUT", "/v1/apps/\(app)", json: ["push": [
                    "environment": "production",
                    "auth": ["type": "certificate", "certificate": try text("dev-client.pem"), "privateKey": try text("dev-client.key")],
                ]])
                try #require(put.status == 201, "\(put.text)")
                let device = try await herald.api("PUT", "/v1/apps/\(app)/devices/phone", json: [
                    "timeZone": "UTC", "pushToStartTokens": [LiveActivityE2E.attributesType: LiveActivityE2E.pushToStart],
                ])
                try #require(device.status == 201, "\(device.text)")
                let start: [String: Any] = ["event": "start", "attributesType": LiveActivityE2E.attributesType,
                                            "attributes": ["a": 1], "contentState": score(0, 0)]
                let scheduled = try await herald.api("POST", "/v1/apps/\(app)/devices/phone/notifications",
                                                     json: ["fireDate": utc(Date().addingTimeInterval(3600)), "liveActivity": start])
                #expect(scheduled.status == 422 && scheduled.json.object("error")?.string("reason") == "liveActivityNeedsTokenAuth",
                        "\(scheduled.text)")
                let pushed = try await herald.api("POST", "/v1/push", json: ["notifications": [
                    ["app": app, "devices": ["phone"], "liveActivity": start],
                ]])
                #expect(pushed.json.objects("results").first?.string("reason") == "liveActivityNeedsTokenAuth", "\(pushed.text)")
                let channel = try await herald.api("POST", "/v1/apps/\(app)/channels", json: ["name": "news"])
                #expect(channel.status == 422 && channel.json.object("error")?.string("reason") == "liveActivityNeedsTokenAuth",
                        "\(channel.text)")
                let stored = try await herald.api("GET", "/v1/apps/\(app)/devices/phone/notifications")
                #expect(stored.json.objects("notifications").isEmpty, "nothing refused was stored")
            }
        }
    }
}
