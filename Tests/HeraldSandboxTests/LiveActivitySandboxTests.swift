import Foundation
import HeraldCore
import HeraldHTTP2
import HeraldSandbox
import HeraldTestSupport
import Testing

private let bundleID = "com.example.herald"
private let liveActivityTopic = "com.example.herald.push-type.liveactivity"

/// A Live Activity payload; each argument left nil leaves its key out.
private func activityBody(event: String = "update", timestamp: String? = "1700000000", contentState: String? = #"{"score":"1-0"}"#,
                          attributesType: String? = nil, attributes: String? = nil, alert: String? = nil) -> String {
    var fields = [#""event":"\#(event)""#]
    if let timestamp { fields.append(#""timestamp":\#(timestamp)"#) }
    if let contentState { fields.append(#""content-state":\#(contentState)"#) }
    if let attributesType { fields.append(#""attributes-type":"\#(attributesType)""#) }
    if let attributes { fields.append(#""attributes":\#(attributes)"#) }
    if let alert { fields.append(#""alert":\#(alert)"#) }
    return #"{"aps":{\#(fields.joined(separator: ","))}}"#
}

/// A start that passes every rule.
private func startBody(timestamp: Int = 1_700_000_000) -> String {
    activityBody(event: "start", timestamp: String(timestamp), contentState: #"{"score":"0-0"}"#, attributesType: "MatchAttributes",
                 attributes: #"{"home":"Lions","away":"Tigers"}"#, alert: #"{"title":"Kick-off","body":"Lions v Tigers"}"#)
}

/// A Live Activity push to a device token, with token auth unless `authorization` is nil.
private func activityPush(token: String = deviceToken(0x1a), authorization: String?, body: String) -> TestPush {
    TestPush(token: token, type: "liveactivity", topic: liveActivityTopic, authorization: authorization, body: body)
}

/// A broadcast to `channel` (nil leaves `apns-channel-id` out) that passes every check.
private func broadcast(channel: String?, authorization: String?, body: String = activityBody()) -> TestPush {
    var push = TestPush(type: "liveactivity", topic: liveActivityTopic, authorization: authorization, body: body)
    push.path = "/4/broadcasts/apps/\(bundleID)"
    push.set("apns-channel-id", channel)
    return push
}

/// A channel management request; `authorization` nil sends none.
private func management(_ method: String, _ path: String, authorization: String?, channel: String? = nil,
                        requestID: String? = nil, body: String = "") -> HTTP2Request {
    var headers: [HTTP2Header] = []
    if let authorization { headers.append(("authorization", authorization)) }
    if let channel { headers.append(("apns-channel-id", channel)) }
    if let requestID { headers.append(("apns-request-id", requestID)) }
    return HTTP2Request(method: method, path: path, authority: "localhost", headers: headers, body: Array(body.utf8))
}

private let channelsPath = "/1/apps/\(bundleID)/channels"

extension HTTP2ClientConnection {
    fileprivate func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try await send(request, timeout: .seconds(10))
    }

    /// Creates a channel and returns its id.
    fileprivate func createChannel(policy: Int = 1, authorization: String) async throws -> String {
        let response = try await send(management("POST", channelsPath, authorization: authorization,
                                                 body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#))
        try #require(response.status == 201, "creating a channel: \(response.reason ?? "")")
        return try #require(response.header("apns-channel-id"))
    }
}

extension ActivityEvent {
    /// The event with its time zeroed, for comparisons after a millisecond round trip.
    fileprivate var withoutTime: ActivityEvent {
        var copy = self
        copy.receivedAt = Date(timeIntervalSince1970: 0)
        return copy
    }
}

extension AdminClient {
    /// `GET /broadcasts?channel=…`, the id escaped as a query value.
    fileprivate func broadcasts(_ channel: String) async throws -> Reply {
        try await send("GET", "/broadcasts?channel=\(channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? channel)")
    }
}

@Suite("Live Activity pushes and broadcast channels")
struct LiveActivitySandboxTests {
    @Test("liveactivity pushes with token auth are accepted: start, update and end")
    func liveActivityAcceptedWithTokenAuth() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            for body in [startBody(), activityBody(), activityBody(event: "end", contentState: nil)] {
                let response = try await client.send(activityPush(authorization: bearer, body: body))
                #expect(response.status == 200, "\(body): \(response.reason ?? "")")
                #expect(response.header("apns-id") != nil)
            }
            let inbox = sandbox.inbox(token: deviceToken(0x1a))
            #expect(inbox.map(\.pushType) == [.liveactivity, .liveactivity, .liveactivity])
            #expect(inbox.allSatisfy { $0.topic == liveActivityTopic })
        }
    }

    @Test("a liveactivity push with certificate auth is refused 403 MissingProviderToken")
    func liveActivityRefusedWithCertificateAuth() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox, clientCertificate: true)
            defer { client.close() }
            let response = try await client.send(activityPush(authorization: nil, body: startBody()))
            #expect(response.status == 403)
            #expect(response.reason == "MissingProviderToken")
            #expect(try await client.send(TestPush(authorization: nil)).status == 200, "an alert on the same connection is fine")
            #expect(sandbox.inbox(token: deviceToken(0x1a)).isEmpty)
        }
    }

    @Test("a non-integer timestamp is refused as InvalidPushType", arguments: ["1700000000.5", #""1700000000""#, "null"])
    func nonIntegerTimestampRefused(_ timestamp: String) async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let response = try await client.send(activityPush(authorization: try TestKeys.bearer(),
                                                              body: activityBody(timestamp: timestamp)))
            #expect(response.status == 400)
            #expect(response.reason == "InvalidPushType")
            #expect(sandbox.allInboxes().isEmpty)
        }
    }

    @Test("a start without attributes or attributes-type is refused as InvalidPushType")
    func startWithoutAttributesRefused() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let withoutAttributes = activityBody(event: "start", attributesType: "MatchAttributes")
            let withoutType = activityBody(event: "start", attributes: #"{"home":"Lions"}"#)
            for body in [withoutAttributes, withoutType] {
                let response = try await client.send(activityPush(authorization: bearer, body: body))
                #expect(response.status == 400)
                #expect(response.reason == "InvalidPushType", "\(body)")
            }
            #expect(sandbox.allInboxes().isEmpty)
        }
    }

    @Test("an update without content-state is refused as InvalidPushType; an end may leave it out")
    func updateWithoutContentStateRefused() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let update = try await client.send(activityPush(authorization: bearer, body: activityBody(contentState: nil)))
            #expect(update.status == 400)
            #expect(update.reason == "InvalidPushType")
            let unknownEvent = try await client.send(activityPush(authorization: bearer, body: activityBody(event: "pause")))
            #expect(unknownEvent.reason == "InvalidPushType")
            let end = try await client.send(activityPush(authorization: bearer, body: activityBody(event: "end", contentState: nil)))
            #expect(end.status == 200)
        }
    }

    @Test("a liveactivity push whose topic lacks .push-type.liveactivity is refused as BadTopic")
    func wrongTopicSuffixRefused() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            for topic in [bundleID, "com.example.herald.push-type.widgets", "com.example.herald.voip", ".push-type.liveactivity"] {
                var push = activityPush(authorization: bearer, body: activityBody())
                push.set("apns-topic", topic)
                let response = try await client.send(push)
                #expect(response.status == 400)
                #expect(response.reason == "BadTopic", "\(topic)")
            }
            #expect(sandbox.allInboxes().isEmpty)
        }
    }

    @Test("widgets and controls pushes need content-changed: true")
    func widgetsNeedContentChanged() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            for type in [APNsPushType.widgets, .controls] {
                let topic = try #require(type.topic(bundleID: bundleID))
                let refused = try await client.send(TestPush(type: type.rawValue, topic: topic, authorization: bearer))
                #expect(refused.reason == "InvalidPushType", "\(type.rawValue) with an alert payload")
                let accepted = try await client.send(TestPush(type: type.rawValue, topic: topic, authorization: bearer,
                                                              body: #"{"aps":{"content-changed":true}}"#))
                #expect(accepted.status == 200, "\(type.rawValue): \(accepted.reason ?? "")")
            }
        }
    }

    @Test("channels are created, read, listed and deleted through the channel management API")
    func channelCreateReadListDelete() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()

            let requestID = "0a1b2c3d-0000-4000-8000-0000000000aa"
            let created = try await client.send(management("POST", channelsPath, authorization: bearer, requestID: requestID,
                                                           body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#))
            #expect(created.status == 201)
            #expect(created.body.isEmpty)
            #expect(created.header("apns-request-id") == requestID, "the request's id is echoed")
            let first = try #require(created.header("apns-channel-id"))
            #expect(Data(base64Encoded: first)?.count == 16, "a channel id is base64 of 16 bytes")
            let second = try await client.createChannel(policy: 0, authorization: bearer)
            #expect(second != first)

            let read = try await client.send(management("GET", channelsPath, authorization: bearer, channel: first))
            #expect(read.status == 200)
            #expect(read.json["message-storage-policy"] as? Int == 1)
            #expect(read.json["push-type"] as? String == "LiveActivity")
            let generated = try #require(read.header("apns-request-id"))
            #expect(UUID(uuidString: generated) != nil && generated == generated.lowercased(), "a new lowercase UUID when none is sent")

            let all = try await client.send(management("GET", "/1/apps/\(bundleID)/all-channels", authorization: bearer))
            #expect(all.status == 200)
            #expect(all.json["channels"] as? [String] == [first, second])
            let otherApp = try await client.send(management("GET", "/1/apps/com.example.other/all-channels", authorization: bearer))
            #expect(otherApp.json["channels"] as? [String] == [], "channels belong to the app they were created for")
            let notTheirs = try await client.send(management("GET", "/1/apps/com.example.other/channels", authorization: bearer,
                                                             channel: first))
            #expect(notTheirs.status == 404)
            #expect(notTheirs.reason == "ChannelNotRegistered")

            let deleted = try await client.send(management("DELETE", channelsPath, authorization: bearer, channel: first))
            #expect(deleted.status == 204)
            let gone = try await client.send(management("GET", channelsPath, authorization: bearer, channel: first))
            #expect(gone.status == 404)
            #expect(gone.reason == "ChannelNotRegistered")
            let deletedTwice = try await client.send(management("DELETE", channelsPath, authorization: bearer, channel: first))
            #expect(deletedTwice.reason == "ChannelNotRegistered")
            let remaining = try await client.send(management("GET", "/1/apps/\(bundleID)/all-channels", authorization: bearer))
            #expect(remaining.json["channels"] as? [String] == [second])
            #expect(sandbox.channels(bundleID: bundleID).map(\.apnsChannelId) == [second])
        }
    }

    @Test("the channel management API refuses what APNs refuses")
    func channelManagementRefusals() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox, clientCertificate: true)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let cases: [(String, HTTP2Request, APNsReason)] = [
                ("no provider token, even with a certificate",
                 management("POST", channelsPath, authorization: nil, body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#),
                 .missingProviderToken),
                ("forged provider token",
                 management("GET", "/1/apps/\(bundleID)/all-channels", authorization: try TestKeys.bearer(key: TestKeys.stranger)),
                 .invalidProviderToken),
                ("policy 2", management("POST", channelsPath, authorization: bearer,
                                        body: #"{"message-storage-policy":2,"push-type":"LiveActivity"}"#), .invalidPolicy),
                ("no policy", management("POST", channelsPath, authorization: bearer, body: #"{"push-type":"LiveActivity"}"#),
                 .invalidPolicy),
                ("push type alert", management("POST", channelsPath, authorization: bearer,
                                               body: #"{"message-storage-policy":0,"push-type":"alert"}"#), .invalidPushType),
                ("no push type", management("POST", channelsPath, authorization: bearer, body: #"{"message-storage-policy":0}"#),
                 .invalidPushType),
                ("read without a channel id", management("GET", channelsPath, authorization: bearer), .missingChannelId),
                ("delete without a channel id", management("DELETE", channelsPath, authorization: bearer), .missingChannelId),
                ("a channel id that is not base64", management("GET", channelsPath, authorization: bearer, channel: "not base64!"),
                 .badChannelId),
                ("an unknown channel", management("GET", channelsPath, authorization: bearer, channel: "AAAAAAAAAAAAAAAAAAAAAA=="),
                 .channelNotRegistered),
                ("PUT", management("PUT", channelsPath, authorization: bearer), .methodNotAllowed),
                ("an unknown path", management("GET", "/1/apps/\(bundleID)/channel-list", authorization: bearer), .badPath),
            ]
            for (name, request, reason) in cases {
                let response = try await client.send(request)
                #expect(response.status == reason.status, "\(name)")
                #expect(response.reason == reason.rawValue, "\(name)")
                #expect(response.header("apns-request-id") != nil, "\(name): refusals carry apns-request-id")
            }
            #expect(sandbox.channels(bundleID: bundleID).isEmpty)
        }
    }

    @Test("an app at its channel limit is answered 429 TooManyRequests")
    func channelLimit() async throws {
        try await withSandbox(maximumChannelsPerApp: 2) { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            _ = try await client.createChannel(authorization: bearer)
            _ = try await client.createChannel(authorization: bearer)
            let third = try await client.send(management("POST", channelsPath, authorization: bearer,
                                                         body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#))
            #expect(third.status == 429)
            #expect(third.reason == "TooManyRequests")
            let otherApp = try await client.send(management("POST", "/1/apps/com.example.other/channels", authorization: bearer,
                                                            body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#))
            #expect(otherApp.status == 201, "the limit is per app")
        }
    }

    @Test("a broadcast to a created channel is answered 200 with its apns-id and listed on the channel")
    func broadcastAcceptedAndListed() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let channel = try await client.createChannel(authorization: bearer)

            let id = "6f1a3c2e-9b8d-4e5f-a1b2-c3d4e5f60719"
            var update = broadcast(channel: channel, authorization: bearer,
                                   body: activityBody(timestamp: "1700000100", contentState: #"{"score":"2-1"}"#))
            update.set("apns-id", id)
            update.set("apns-collapse-id", "score")
            update.set("apns-priority", "5")
            let accepted = try await client.send(update)
            #expect(accepted.status == 200, "\(accepted.reason ?? "")")
            #expect(accepted.header("apns-id") == id)
            let end = try await client.send(broadcast(channel: channel, authorization: bearer,
                                                      body: activityBody(event: "end", timestamp: "1700000200", contentState: nil)))
            #expect(end.status == 200)
            let endID = try #require(end.header("apns-id"))
            #expect(sandbox.allInboxes().isEmpty, "a broadcast reaches no device inbox")

            let admin = AdminClient(port: sandbox.adminPort)
            let listed = try await admin.broadcasts(channel)
            #expect(listed.status == 200)
            #expect(listed.json["channel"] as? String == channel)
            struct Broadcasts: Decodable { var channel: String; var broadcasts: [ActivityEvent] }
            let broadcasts = try JSONDecoder().decode(Broadcasts.self, from: listed.body).broadcasts
            #expect(broadcasts.map(\.event) == [.update, .end])
            #expect(broadcasts.map(\.timestamp) == [1_700_000_100, 1_700_000_200])
            #expect(broadcasts.map(\.apnsId) == [id, endID])
            #expect(broadcasts[0].contentState == .object(["score": .string("2-1")]))
            #expect(broadcasts[0].collapseId == "score")
            #expect(broadcasts[1].contentState == nil)
            let rows = try #require(listed.json["broadcasts"] as? [[String: Any]])
            #expect(rows[1]["contentState"] is NSNull, "absent values are null, not left out")
            #expect((rows[0]["receivedAt"] as? String).flatMap(RFC3339.instant(from:)) != nil)

            // The id in the path, percent-escaped, answers the same.
            let escaped = channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? channel
            let byPath = try await admin.send("GET", "/broadcasts/\(escaped)")
            #expect(byPath.status == 200)
            #expect(try JSONDecoder().decode(Broadcasts.self, from: byPath.body).broadcasts == broadcasts)
            #expect(sandbox.broadcasts(channelID: channel)?.map(\.withoutTime) == broadcasts.map(\.withoutTime),
                    "the library API holds what the admin API shows, to the millisecond")

            let channels = try await admin.send("GET", "/channels/\(bundleID)")
            #expect(channels.status == 200)
            let summary = try #require((channels.json["channels"] as? [[String: Any]])?.first)
            #expect(summary["apnsChannelId"] as? String == channel)
            #expect(summary["messageStoragePolicy"] as? Int == 1)
            #expect(summary["broadcasts"] as? Int == 2)

            let unknown = try await admin.broadcasts("AAAAAAAAAAAAAAAAAAAAAA==")
            #expect(unknown.status == 404)

            #expect(try await admin.send("DELETE", "/inbox").status == 204)
            let cleared = try await admin.broadcasts(channel)
            #expect((cleared.json["broadcasts"] as? [Any])?.isEmpty == true, "DELETE /inbox clears broadcasts")
            #expect(sandbox.channels(bundleID: bundleID).count == 1, "and keeps the channel")
        }
    }

    @Test("a broadcast to a channel the app does not have is 404 ChannelNotRegistered")
    func broadcastToUnknownChannel() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let unknown = try await client.send(broadcast(channel: "AAAAAAAAAAAAAAAAAAAAAA==", authorization: bearer))
            #expect(unknown.status == 404)
            #expect(unknown.reason == "ChannelNotRegistered")

            // Another app's channel is unknown to this one.
            let created = try await client.send(management("POST", "/1/apps/com.example.other/channels", authorization: bearer,
                                                           body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#))
            let otherAppsChannel = try #require(created.header("apns-channel-id"))
            let misdirected = try await client.send(broadcast(channel: otherAppsChannel, authorization: bearer))
            #expect(misdirected.reason == "ChannelNotRegistered")

            // A deleted channel takes no more broadcasts.
            let channel = try await client.createChannel(authorization: bearer)
            #expect(try await client.send(broadcast(channel: channel, authorization: bearer)).status == 200)
            _ = try await client.send(management("DELETE", channelsPath, authorization: bearer, channel: channel))
            #expect(try await client.send(broadcast(channel: channel, authorization: bearer)).reason == "ChannelNotRegistered")
        }
    }

    @Test("a broadcast without apns-channel-id is 400 MissingChannelId")
    func broadcastWithoutChannelId() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let response = try await client.send(broadcast(channel: nil, authorization: try TestKeys.bearer()))
            #expect(response.status == 400)
            #expect(response.reason == "MissingChannelId")
            let malformed = try await client.send(broadcast(channel: "not base64!", authorization: try TestKeys.bearer()))
            #expect(malformed.reason == "BadChannelId")
        }
    }

    @Test("broadcasts are checked as APNs checks them: type, topic, event, token auth")
    func broadcastChecks() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox, clientCertificate: true)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let channel = try await client.createChannel(authorization: bearer)

            var alert = broadcast(channel: channel, authorization: bearer)
            alert.set("apns-push-type", "alert")
            alert.set("apns-topic", bundleID)
            #expect(try await client.send(alert).reason == "InvalidPushType", "broadcasts are liveactivity pushes")

            var otherApp = broadcast(channel: channel, authorization: bearer)
            otherApp.set("apns-topic", "com.example.other.push-type.liveactivity")
            #expect(try await client.send(otherApp).reason == "BadTopic", "the topic is the path's app")

            let start = try await client.send(broadcast(channel: channel, authorization: bearer, body: startBody()))
            #expect(start.status == 400)
            #expect(start.reason == "InvalidPushType", "a start goes to a device, not a channel")

            let certificate = try await client.send(broadcast(channel: channel, authorization: nil))
            #expect(certificate.status == 403)
            #expect(certificate.reason == "MissingProviderToken")

            var badPath = broadcast(channel: channel, authorization: bearer)
            badPath.path = "/4/broadcasts/apps/"
            #expect(try await client.send(badPath).reason == "BadPath")

            #expect(sandbox.broadcasts(channelID: channel)?.isEmpty == true)
        }
    }

    @Test("rate faults apply to broadcasts; token faults do not")
    func broadcastFaults() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let channel = try await client.createChannel(authorization: bearer)
            sandbox.faults = SandboxFaults(unregistered: [channel])
            #expect(try await client.send(broadcast(channel: channel, authorization: bearer)).status == 200)
            sandbox.faults = SandboxFaults(tooManyRequestsRate: 1)
            #expect(try await client.send(broadcast(channel: channel, authorization: bearer)).reason == "TooManyRequests")
            sandbox.faults = SandboxFaults(unavailableRate: 1)
            #expect(try await client.send(broadcast(channel: channel, authorization: bearer)).reason == "ServiceUnavailable")
            #expect(sandbox.broadcasts(channelID: channel)?.count == 1)
        }
    }

    @Test("the admin API shows a device token's Live Activity timeline in arrival order")
    func activityTimelineViaAdminAPI() async throws {
        try await withSandbox { sandbox in
            let client = try await connect(sandbox)
            defer { client.close() }
            let bearer = try TestKeys.bearer()
            let token = deviceToken(0x1b)
            var start = activityPush(token: token, authorization: bearer, body: startBody(timestamp: 1_700_000_000))
            start.set("apns-collapse-id", "match")
            let started = try await client.send(start)
            #expect(started.status == 200)
            #expect(try await client.send(TestPush(token: token, authorization: bearer)).status == 200, "an alert, not in the timeline")
            let update = try await client.send(activityPush(token: token.uppercased(), authorization: bearer,
                                                            body: activityBody(timestamp: "1700000060", alert: #""Goal!""#)))
            #expect(update.status == 200)
            let end = try await client.send(activityPush(token: token, authorization: bearer,
                                                         body: activityBody(event: "end", timestamp: "1700000120", contentState: nil)))
            #expect(end.status == 200)

            let reply = try await AdminClient(port: sandbox.adminPort).send("GET", "/activities/\(token.uppercased())")
            #expect(reply.status == 200)
            #expect(reply.json["token"] as? String == token)
            struct Timeline: Decodable { var token: String; var events: [ActivityEvent] }
            let events = try JSONDecoder().decode(Timeline.self, from: reply.body).events
            #expect(events.map(\.event) == [.start, .update, .end])
            #expect(events.map(\.timestamp) == [1_700_000_000, 1_700_000_060, 1_700_000_120])
            #expect(events.map(\.apnsId) == [started, update, end].map { $0.header("apns-id") ?? "" })
            #expect(events[0].attributesType == "MatchAttributes")
            #expect(events[0].contentState == .object(["score": .string("0-0")]))
            #expect(events[0].alert == .object(["title": .string("Kick-off"), "body": .string("Lions v Tigers")]))
            #expect(events[0].collapseId == "match")
            #expect(events[1].alert == .string("Goal!"))
            #expect(events[1].attributesType == nil)
            #expect(events[2].contentState == nil)
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.receivedAt <= $1.receivedAt })
            let rows = try #require(reply.json["events"] as? [[String: Any]])
            #expect(Set(rows[2].keys) == ["event", "timestamp", "contentState", "attributesType", "alert", "apnsId", "collapseId",
                                          "receivedAt"], "every row has every key")
            #expect(sandbox.activity(token: token).map(\.withoutTime) == events.map(\.withoutTime))

            let none = try await AdminClient(port: sandbox.adminPort).send("GET", "/activities/\(deviceToken(0x1c))")
            #expect((none.json["events"] as? [Any])?.isEmpty == true)
        }
    }
}
