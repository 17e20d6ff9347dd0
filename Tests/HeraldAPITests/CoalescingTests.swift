import Foundation
import HeraldCore
import HeraldSandbox
import HeraldTestSupport
import Hummingbird
import Testing

/// The app's custom kinds used below, one per rule.
private var customKinds: [[String: Any]] { [
    ["name": "unreadCount", "rule": "sum"],
    ["name": "changedRecords", "rule": "union"],
    ["name": "syncMode", "rule": "latest"],
    ["name": "favorite", "rule": "toggle", "keyed": true],
] }

/// Registers the fixture app (with `customKinds`) and its device in Paris, asleep (notRunning).
private func setUp(_ herald: Herald, custom: Bool = false) async throws {
    try await herald.registerApp(customKinds: custom ? customKinds : nil)
    try await herald.registerDevice([:])
}

/// Net change per rule, through HTTP: events reported for an asleep device, then a wake.
@Suite("Coalescing: one notification per kind carrying the net change")
struct CoalescingTests {
    @Test("Value kinds: portrait → landscape → portrait while asleep, with portrait last delivered, delivers nothing")
    func valueKindBackToDelivered() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([event("orientation", "portrait")])
            #expect(try await herald.wake().coalesced == [Net("orientation", .string("portrait"))])
            try await herald.suspend()

            let answer = try await herald.report([event("orientation", "landscapeLeft"), event("orientation", "portrait")])
            #expect(answer["queued"].int == 2)
            #expect(answer["backlog"].int == 0, "the client already holds portrait")
            #expect(try await herald.backlog().isEmpty)
            #expect(try await herald.wake().coalesced.isEmpty)
        }
    }

    @Test("Value kinds: only the final value is delivered, with how many events it stands for")
    func valueKindFinalValue() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([
                event("orientation", "landscapeLeft"), event("batteryLevel", 0.9), event("orientation", "portrait"),
                event("batteryLevel", 0.8), event("orientation", "faceDown"), event("batteryLevel", 0.7),
                event("orientation", "landscapeRight"), event("ubiquityIdentity", "token-1"), event("ubiquityIdentity", NSNull()),
            ])
            let answer = try await herald.wake()
            #expect(answer.coalesced == [
                Net("orientation", .string("landscapeRight"), count: 4),
                Net("batteryLevel", .number(0.7), count: 3),
                Net("ubiquityIdentity", .null, count: 2),
            ])
        }
    }

    @Test("Keyed kinds: an accessory connected then disconnected while asleep cancels out; another left connected is delivered")
    func accessoryConnectDisconnectCancels() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([
                event("accessory", key: "dock-1", "connected"), event("accessory", key: "keyboard-7", "connected"),
                event("accessory", key: "dock-1", "disconnected"), event("screen", key: "tv", "connected"),
                event("screen", key: "tv", "disconnected"),
            ])
            #expect(try await herald.backlog() == [Net("accessory", key: "keyboard-7", .string("connected"))])
            #expect(try await herald.wake().coalesced == [Net("accessory", key: "keyboard-7", .string("connected"))])

            // Once delivered connected, a disconnect-connect round trip is no change either...
            try await herald.suspend()
            try await herald.report([event("accessory", key: "keyboard-7", "disconnected"),
                                     event("accessory", key: "keyboard-7", "connected")])
            #expect(try await herald.backlog().isEmpty)
            // ...while a disconnect is.
            try await herald.report([event("accessory", key: "keyboard-7", "disconnected")])
            #expect(try await herald.wake().coalesced == [Net("accessory", key: "keyboard-7", .string("disconnected"), count: 3)])
        }
    }

    @Test("Settings: the client gets the final value of each setting that changed, keyed by name in key order; one set back to its delivered value is left out")
    func settingsFinalValuePerSetting() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([event("settings", key: "sound", true)])
            #expect(try await herald.wake().coalesced == [Net("settings", key: "sound", .bool(true))])
            try await herald.suspend()

            try await herald.report([
                event("settings", key: "volume", 3), event("settings", key: "theme", "dark"),
                event("settings", key: "sound", false), event("settings", key: "volume", 7),
                event("settings", key: "sound", true), event("settings", key: "theme", ["mode": "light", "contrast": 2]),
            ])
            #expect(try await herald.wake().coalesced == [
                Net("settings", key: "theme", .object(["mode": .string("light"), "contrast": .number(2)]), count: 2),
                Net("settings", key: "volume", .number(7), count: 2),
            ])
        }
    }

    @Test("significantTimeChange is delivered once however often it occurred, with the count, and no value")
    func significantTimeChangeOnce() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report(Array(repeating: event("significantTimeChange"), count: 5))
            try await herald.report([event("significantTimeChange", NSNull())])
            let answer = try await herald.wake()
            #expect(answer.coalesced == [Net("significantTimeChange", .null, count: 6)])
            #expect(answer["notifications"][0]["value"].isNull)
            #expect(try await herald.wake().coalesced.isEmpty, "valueless kinds remember nothing")
        }
    }

    @Test("Custom latest: the last value wins; back to the value last delivered is no change")
    func customLatest() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald, custom: true)
            try await herald.report([event("syncMode", "wifi"), event("syncMode", ["cellular": true])])
            #expect(try await herald.wake().coalesced == [Net("syncMode", .object(["cellular": .bool(true)]), count: 2)])
            try await herald.suspend()
            try await herald.report([event("syncMode", "off"), event("syncMode", ["cellular": true])])
            #expect(try await herald.wake().coalesced.isEmpty)
        }
    }

    @Test("Custom sum: the values since the last delivery add up; a total of zero delivers nothing")
    func customSum() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald, custom: true)
            try await herald.report([event("unreadCount", 2), event("unreadCount", 5), event("unreadCount", -1.5)])
            #expect(try await herald.wake().coalesced == [Net("unreadCount", .number(5.5), count: 3)])
            try await herald.suspend()
            try await herald.report([event("unreadCount", 4), event("unreadCount", -4)])
            #expect(try await herald.backlog().isEmpty)
            #expect(try await herald.wake().coalesced.isEmpty)
            try await herald.suspend()
            try await herald.report([event("unreadCount", 1)])
            #expect(try await herald.wake().coalesced == [Net("unreadCount", .number(1))], "a sum starts again after each delivery")
        }
    }

    @Test("Custom union: the sorted union of the members since the last delivery")
    func customUnion() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald, custom: true)
            try await herald.report([event("changedRecords", "r9"), event("changedRecords", ["r2", "r9", "r1"]),
                                     event("changedRecords", ["r5"])])
            #expect(try await herald.wake().coalesced == [
                Net("changedRecords", .array(["r1", "r2", "r5", "r9"].map(JSONValue.string)), count: 3),
            ])
            try await herald.suspend()
            try await herald.report([event("changedRecords", "r1")])
            #expect(try await herald.wake().coalesced == [Net("changedRecords", .array([.string("r1")]))],
                    "a union starts again after each delivery")
        }
    }

    @Test("Custom toggle (keyed): pairs cancel; an odd number of flips is delivered per key")
    func customToggle() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald, custom: true)
            try await herald.report([
                event("favorite", key: "song-1"), event("favorite", key: "song-2"), event("favorite", key: "song-1"),
                event("favorite", key: "song-2"), event("favorite", key: "song-2"),
            ])
            #expect(try await herald.wake().coalesced == [Net("favorite", key: "song-2", .null, count: 3)])
        }
    }

    @Test("A batch comes in a stable order: built-in kinds in catalog order, then custom kinds by name, then keys ascending, whatever the order reported")
    func stableOrder() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await herald.registerApp(customKinds: customKinds)
            let events: [[String: Any]] = [
                event("ubiquityIdentity", "icloud-a"), event("locale", "en_GB"), event("settings", key: "zoom", 2),
                event("settings", key: "alpha", "on"), event("screenMode", key: "tv", "1080p"), event("screen", key: "tv", "connected"),
                event("protectedData", "unavailable"), event("proximity", false), event("batteryState", "charging"),
                event("batteryLevel", 0.5), event("timeZone", "Asia/Tokyo"), event("significantTimeChange"),
                event("orientation", "faceUp"), event("accessory", key: "b", "connected"), event("accessory", key: "a", "connected"),
                event("syncMode", "x"), event("favorite", key: "k"), event("changedRecords", "c"), event("unreadCount", 1),
            ]
            let expected: [Net] = [
                Net("accessory", key: "a", .string("connected")), Net("accessory", key: "b", .string("connected")),
                Net("orientation", .string("faceUp")), Net("significantTimeChange"), Net("timeZone", .string("Asia/Tokyo")),
                Net("batteryLevel", .number(0.5)), Net("batteryState", .string("charging")), Net("proximity", .bool(false)),
                Net("protectedData", .string("unavailable")), Net("screen", key: "tv", .string("connected")),
                Net("screenMode", key: "tv", .string("1080p")), Net("settings", key: "alpha", .string("on")),
                Net("settings", key: "zoom", .number(2)), Net("locale", .string("en_GB")),
                Net("ubiquityIdentity", .string("icloud-a")),
                Net("changedRecords", .array([.string("c")])), Net("favorite", key: "k"), Net("syncMode", .string("x")),
                Net("unreadCount", .number(1)),
            ]
            // Three devices, three reporting orders, one delivery order.
            for (device, order) in [("forward", events), ("reversed", Array(events.reversed())),
                                    ("shuffled", events.enumerated().sorted { ($0.offset * 7) % 19 < ($1.offset * 7) % 19 }.map(\.element))] {
                try await herald.registerDevice([:], device: device)
                try await herald.report(order, device: device)
                #expect(try await herald.backlog(device: device) == expected, "\(device)")
                #expect(try await herald.wake(device: device).coalesced == expected, "\(device)")
            }
        }
    }

    @Test("The backlog preview is what a wake delivers, and previewing delivers nothing")
    func previewMatchesWake() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald, custom: true)
            try await herald.report([event("orientation", "portraitUpsideDown"), event("unreadCount", 3),
                                     event("settings", key: "lang", "fr"), event("significantTimeChange")])
            let preview = try await herald.backlog()
            #expect(preview.count == 4)
            #expect(try await herald.backlog() == preview, "a preview changes nothing")
            #expect(try await herald.wake().coalesced == preview)
            #expect(try await herald.backlog().isEmpty)
        }
    }

    @Test("Memory is bounded by kinds and keys: a thousand events make one notification per kind and key")
    func burstCollapses() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            let orientations = ["portrait", "landscapeLeft", "landscapeRight", "faceUp"]
            let burst: [[String: Any]] = (0..<1000).map { index in
                switch index % 4 {
                case 0: return event("orientation", orientations[(index / 4) % 4])
                case 1: return event("batteryLevel", Double(index % 100) / 100)
                case 2: return event("settings", key: "s\(index % 3)", index)
                default: return event("significantTimeChange")
                }
            }
            let answer = try await herald.report(burst)
            #expect(answer["accepted"].int == 1000)
            #expect(answer["backlog"].int == 6)
            #expect(try await herald.wake().coalesced == [
                Net("orientation", .string("landscapeLeft"), count: 250),
                Net("significantTimeChange", .null, count: 250),
                Net("batteryLevel", .number(0.97), count: 250),
                Net("settings", key: "s0", .number(990), count: 83),
                Net("settings", key: "s1", .number(994), count: 83),
                Net("settings", key: "s2", .number(998), count: 84),
            ])
        }
    }
}

/// What is live and what is queued, refusals, restarts, and what a wake carries besides events.
@Suite("Coalescing: live, queued, refused, restarted")
struct CoalescingDeliveryTests {
    @Test("An awake device without a live stream has its events queued, losslessly, until it wakes")
    func awakeWithoutStreamQueues() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.moveTo("active")
            let answer = try await herald.report([event("orientation", "landscapeLeft"), event("batteryState", "full")])
            #expect(answer["live"].int == 0)
            #expect(answer["queued"].int == 2)
            #expect(answer["backlog"].int == 2)
            #expect(try await herald.wake("active").coalesced == [Net("orientation", .string("landscapeLeft")),
                                                                Net("batteryState", .string("full"))])
        }
    }

    @Test("An awake device connected to its stream gets events live, in the order reported, and nothing is queued")
    func awakeConnectedGetsEventsLive() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await setUp(herald)
            let stream = try await live.connect()
            defer { stream.close() }
            let answer = try await herald.report([event("orientation", "landscapeLeft"), event("orientation", "portrait"),
                                                  event("accessory", key: "dock", "connected")])
            #expect(answer["accepted"].int == 3)
            #expect(answer["live"].int == 3)
            #expect(answer["queued"].int == 0)
            #expect(answer["backlog"].int == 0)
            let frames = await stream.waitForEvents(3)
            #expect(frames.map(\.event) == ["system", "system", "system"])
            #expect(frames.compactMap { Net($0.json) } == [
                Net("orientation", .string("landscapeLeft")), Net("orientation", .string("portrait")),
                Net("accessory", key: "dock", .string("connected")),
            ], "live events are not collapsed")
            #expect(frames.dropLast().allSatisfy { $0.id == nil }, "one id, on the last event of the hand-over")
            let seq = try #require(frames.last?.id.flatMap { Int64($0) }, "live events carry their hand-over's id")
            let ack = try await herald.api.post("\(devicePath())/inbox/ack", json: ["upTo": seq])
            #expect(ack.status == .ok)
            #expect(try await herald.backlog().isEmpty, "acknowledged: received, nothing waits")
        }
    }

    @Test("Live events the client did not acknowledge are handed over again on its next wake")
    func unacknowledgedLiveEventsComeAgain() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await setUp(herald)
            let stream = try await live.connect()
            defer { stream.close() }
            try await herald.report([event("orientation", "portrait"), event("accessory", key: "dock", "connected")])
            #expect(await stream.waitForEvents(2).count == 2)
            stream.close()
            try #require(try await herald.waitForState("suspended") == "suspended")
            #expect(try await herald.wake().coalesced == [Net("accessory", key: "dock", .string("connected")),
                                                         Net("orientation", .string("portrait"))],
                    "the stream may have dropped before the client read them: they come again")
        }
    }

    @Test("What a client received live, and acknowledged, is what the next backlog is measured against")
    func liveDeliveryIsTheBaseline() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await setUp(herald)
            let stream = try await live.connect()
            defer { stream.close() }
            try await herald.report([event("orientation", "landscapeRight"), event("accessory", key: "dock", "connected")])
            let frames = await stream.waitForEvents(2)
            let seq = try #require(frames.last?.id.flatMap { Int64($0) })
            #expect(try await herald.api.post("\(devicePath())/inbox/ack", json: ["upTo": seq]).status == .ok)
            stream.close()
            try #require(try await herald.waitForState("suspended") == "suspended")

            let answer = try await herald.report([event("orientation", "portrait"), event("orientation", "landscapeRight"),
                                                  event("accessory", key: "dock", "disconnected"),
                                                  event("accessory", key: "dock", "connected")])
            #expect(answer["queued"].int == 4)
            #expect(answer["backlog"].int == 0)
            #expect(try await herald.wake().coalesced.isEmpty)
        }
    }

    @Test("Connecting delivers the coalesced backlog first, then the inbox, then live events")
    func streamBacklogThenInboxThenLive() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([event("batteryLevel", 0.4), event("orientation", "faceUp"), event("batteryLevel", 0.3)])
            try await herald.schedule(notification(id: "pill", fireDate: "2026-11-01T00:01:00Z", title: "Pill"))
            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:00Z"))
            _ = await herald.server.engine.fireDueBatch()
            #expect(try await herald.deliveries().first?["channel"].string == "inbox", "asleep, no token: held")

            let stream = try await live.connect()
            defer { stream.close() }
            try await herald.report([event("orientation", "portrait")])
            let all = await stream.waitForEvents(5)
            #expect(all.map(\.event) == ["system", "system", "notification", "handedOver", "system"],
                    "the backlog's handedOver id comes after the inbox: \(all)")
            let frames = all.filter { $0.event != "handedOver" }
            try #require(frames.count == 4, "\(stream.frames)")
            #expect(Net(frames[0].json) == Net("orientation", .string("faceUp")))
            #expect(Net(frames[1].json) == Net("batteryLevel", .number(0.3), count: 2))
            #expect(frames[2].json["occurrenceId"].string == "pill#0")
            #expect(frames[2].json["alert"]["title"].string == "Pill")
            #expect(Net(frames[3].json) == Net("orientation", .string("portrait")))
            #expect(stream.frames.first?.comment == "connected", "the connected comment comes before everything")
            let seq = try #require(frames[2].json["seq"].int, "an inbox item carries the sequence id to acknowledge")
            #expect(try await herald.wake(acknowledging: false).inbox.map(\.["seq"].int) == [seq], "kept until acknowledged")
            #expect(try await herald.acknowledge(upTo: seq) == 1)
            #expect(try await herald.wake().inbox.isEmpty, "acknowledged, it is gone")
        }
    }

    @Test("A refused event refuses the whole request with a reason naming it, and changes nothing: backlog, device and notifications are as before",
          arguments: RefusedEvents.cases)
    func refusedEventChangesNothing(_ refused: RefusedEvents) async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.schedule(notification(id: "floating", fireDate: "2026-11-02T09:00", timeZone: "floating"))
            try await herald.report([event("orientation", "faceDown"), event("settings", key: "a", 1)])
            let backlog = try await herald.backlog()
            let refusal = try await herald.expectRefusal(.post, "\(devicePath())/events", body: #"{"events":"# + refused.events + "}",
                                                         status: .unprocessableContent, reason: refused.reason)
            #expect(refusal.json["error"]["message"].string?.contains("events[\(refused.index)]") == true,
                    "the message names the refused event: \(refusal.text)")
            #expect(try await herald.backlog() == backlog)
            #expect(try await herald.deviceView()["timeZone"].string == "Europe/Paris")
            #expect(try await herald.deviceView()["locale"].isNull)
        }
    }

    @Test("A request without events, or with a kind that is not a string, is refused and changes nothing")
    func malformedEventRequests() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([event("orientation", "faceDown")])
            let backlog = try await herald.backlog()
            try await herald.expectRefusal(.post, "\(devicePath())/events", json: ["events": []],
                                           status: .unprocessableContent, reason: "missingField")
            try await herald.expectRefusal(.post, "\(devicePath())/events", json: [:],
                                           status: .unprocessableContent, reason: "missingField")
            try await herald.expectRefusal(.post, "\(devicePath())/events", json: ["events": [["kind": 7]]],
                                           status: .unprocessableContent, reason: "invalidField")
            try await herald.expectRefusal(.post, "\(devicePath())/events", body: "[", status: .badRequest, reason: "invalidJSON")
            #expect(try await herald.backlog() == backlog)
        }
    }

    @Test("A refusal found while folding (a sum that would overflow) also leaves the events before it in the request unqueued")
    func foldingRefusalChangesNothing() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald, custom: true)
            try await herald.report([event("unreadCount", 1e308)])
            let backlog = try await herald.backlog()
            try await herald.expectRefusal(.post, "\(devicePath())/events",
                                           json: ["events": [event("orientation", "landscapeLeft"), event("unreadCount", 1e308)]],
                                           status: .unprocessableContent, reason: "eventSumOverflow")
            #expect(try await herald.backlog() == backlog)
            #expect(try await herald.backlog() == [Net("unreadCount", .number(1e308))])
        }
    }

    @Test("A restart between queueing and waking loses nothing: a new server on the same data directory delivers the backlog")
    func restartLosesNothing() async throws {
        let directory = TemporaryDirectory.make()
        defer { TemporaryDirectory.remove(directory) }
        let expected: [Net] = [
            Net("accessory", key: "pen", .string("connected"), count: 1),
            Net("orientation", .string("landscapeLeft"), count: 2),
            Net("significantTimeChange", .null, count: 2),
            Net("settings", key: "volume", .number(4), count: 2),
            Net("changedRecords", .array([.string("a"), .string("b")]), count: 2),
            Net("unreadCount", .number(3), count: 2),
        ]
        try await withLifecycleHerald(dataDirectory: directory) { live in
            let herald = live.herald
            try await setUp(herald, custom: true)
            try await herald.report([
                event("orientation", "faceUp"), event("accessory", key: "pen", "connected"), event("significantTimeChange"),
                event("settings", key: "volume", 2), event("changedRecords", "b"), event("unreadCount", 1),
            ])
            try await herald.report([
                event("orientation", "landscapeLeft"), event("significantTimeChange"), event("settings", key: "volume", 4),
                event("changedRecords", "a"), event("unreadCount", 2),
            ])
            #expect(try await herald.backlog() == expected)
        }
        try await withLifecycleHerald(dataDirectory: directory) { live async throws in
            let herald = live.herald
            #expect(try await herald.deviceState() == "notRunning")
            #expect(try await herald.backlog() == expected)
            #expect(try await herald.wake().coalesced == expected)
        }
        try await withLifecycleHerald(dataDirectory: directory) { live async throws in
            #expect(try await live.herald.backlog().isEmpty, "and a wake before the restart is not delivered again after it")
        }
    }

    @Test("A timeZone event moves the device and re-times its floating notifications; fixed-zone and absolute ones are untouched")
    func timeZoneEventRetimesFloating() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            // 2026-11-02 09:00 in Paris (CET) is 08:00Z; in New York (EST, DST ended 1 Nov) it is 14:00Z.
            try await herald.schedule(notification(id: "floating", fireDate: "2026-11-02T09:00", timeZone: "floating"))
            try await herald.schedule(notification(id: "paris", fireDate: "2026-11-02T09:00", timeZone: "Europe/Paris"))
            try await herald.schedule(notification(id: "instant", fireDate: "2026-11-02T08:00:00Z"))
            func nextFireDates() async throws -> [String: String] {
                Dictionary(uniqueKeysWithValues: try await herald.pending().compactMap { item in
                    item["id"].string.flatMap { id in item["nextFireDate"].string.map { (id, $0) } }
                })
            }
            #expect(try await nextFireDates() == ["floating": "2026-11-02T08:00:00Z", "paris": "2026-11-02T08:00:00Z",
                                                  "instant": "2026-11-02T08:00:00Z"])

            let answer = try await herald.report([event("timeZone", "America/New_York")])
            #expect(answer["queued"].int == 1, "asleep: the event itself waits for the wake")
            #expect(try await herald.deviceView()["timeZone"].string == "America/New_York")
            #expect(try await nextFireDates() == ["floating": "2026-11-02T14:00:00Z", "paris": "2026-11-02T08:00:00Z",
                                                  "instant": "2026-11-02T08:00:00Z"])
            #expect(try await herald.pending().last?["id"].string == "floating", "the list is sorted by next fire date")
            #expect(try await herald.wake().coalesced == [Net("timeZone", .string("America/New_York"))])

            // The engine fires the floating one at its new instant, not the old one.
            herald.clock.advance(to: Moment.instant("2026-11-02T08:00:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 2)
            herald.clock.advance(to: Moment.instant("2026-11-02T14:00:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)
            #expect(try await herald.deliveries().first?["occurrenceId"].string == "floating#0")
        }
    }

    @Test("A locale event also becomes the device's locale")
    func localeEventUpdatesDevice() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([event("locale", "pt_BR")])
            #expect(try await herald.deviceView()["locale"].string == "pt_BR")
        }
    }
}

/// A request whose last event is refused: the reason, and the events as JSON text.
struct RefusedEvents: Sendable, CustomTestStringConvertible {
    var reason: String
    var events: String
    /// The refused event's index: the last one.
    var index: Int

    init(_ reason: String, _ events: String) {
        self.reason = reason
        self.events = events
        index = ((try? JSONSerialization.jsonObject(with: Data(events.utf8))) as? [Any] ?? []).count - 1
    }

    var testDescription: String { "\(reason): \(events)" }

    static let cases: [RefusedEvents] = [
        .init("unknownEventKind", #"[{"kind":"orientation","value":"landscapeLeft"},{"kind":"warpDrive","value":"engaged"}]"#),
        .init("invalidEventValue", #"[{"kind":"timeZone","value":"America/New_York"},{"kind":"batteryLevel","value":1.5}]"#),
        .init("invalidEventValue", #"[{"kind":"orientation","value":"sideways"}]"#),
        .init("invalidEventValue", #"[{"kind":"locale","value":"it_IT"},{"kind":"timeZone","value":"Mars/Olympus_Mons"}]"#),
        .init("invalidEventValue", #"[{"kind":"proximity","value":"near"}]"#),
        .init("missingEventKey", #"[{"kind":"locale","value":"it_IT"},{"kind":"accessory","value":"connected"}]"#),
        .init("unexpectedEventKey", #"[{"kind":"orientation","key":"main","value":"portrait"}]"#),
        .init("unexpectedEventValue", #"[{"kind":"significantTimeChange","value":1}]"#),
        .init("invalidEventValue", #"[{"kind":"settings","key":"volume"}]"#),
    ]
}

/// Where a fired local notification goes, and what a wake returns besides system events.
@Suite("Coalescing: routing fired notifications")
struct CoalescingRoutingTests {
    @Test("A notification fired for an asleep device with no token is held in its inbox, returned by the next wake, then gone")
    func inboxUntilWake() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.schedule(notification(id: "wake-up", fireDate: "2026-11-01T00:01:00Z", title: "Good morning",
                                                   body: "Time to get up"))
            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:00Z"))
            #expect(await herald.server.engine.fireDueBatch() == 1)
            let delivery = try #require(try await herald.deliveries().first)
            #expect(delivery["channel"].string == "inbox")
            #expect(delivery["outcome"].string == "held")

            try await herald.report([event("orientation", "landscapeLeft")])
            let answer = try await herald.wake(acknowledging: false)
            #expect(answer.coalesced == [Net("orientation", .string("landscapeLeft"))], "system events come first")
            try #require(answer.inbox.count == 1)
            let item = answer.inbox[0]
            #expect(item["occurrenceId"].string == "wake-up#0")
            #expect(item["notificationId"].string == "wake-up")
            #expect(item["scheduledFor"].string == "2026-11-01T00:01:00Z")
            #expect(item["firedAt"].string == delivery["firedAt"].string,
                    "the inbox shows the firing the delivery recorded (the server's clock), not another instant")
            #expect(item["alert"]["title"].string == "Good morning")
            #expect(item["alert"]["body"].string == "Time to get up")
            #expect(item["late"].bool == false)
            let seq = try #require(item["seq"].int)

            // A client that dropped before reading gets the same item, with the same id, again.
            let again = try await herald.wake(acknowledging: false)
            #expect(again.inbox.map(\.["seq"].int) == [seq])
            #expect(again.inbox.map(\.["occurrenceId"].string) == ["wake-up#0"])
            // The wake's ack removes what was received before answering.
            let reply = try await herald.api.post("\(devicePath())/wake", json: ["ack": seq])
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply.json.inbox.isEmpty, "acknowledged items are never handed over again")
        }
    }

    @Test("The inbox is returned, oldest first, by a state change from asleep to awake too")
    func inboxOnStateChange() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.schedule(notification(id: "first", fireDate: "2026-11-01T00:01:00Z"))
            try await herald.schedule(notification(id: "second", fireDate: "2026-11-01T00:02:00Z"))
            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:00Z"))
            _ = await herald.server.engine.fireDueBatch()
            herald.clock.advance(to: Moment.instant("2026-11-01T00:02:00Z"))
            _ = await herald.server.engine.fireDueBatch()
            let answer = try await herald.moveTo("active")
            #expect(answer["woke"].bool == true)
            #expect(answer.inbox.map(\.["occurrenceId"].string) == ["first#0", "second#0"])
            #expect(try await herald.moveTo("background").inbox.isEmpty)
        }
    }

    @Test("A notification for an active device connected to its stream goes quietly on the stream: channel stream, outcome delivered")
    func activeConnectedGetsStream() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.schedule(notification(id: "ping", fireDate: "2026-11-01T00:01:00Z", title: "Ping"))
            let stream = try await live.connect(foreground: true)
            defer { stream.close() }
            herald.clock.advance(to: Moment.instant("2026-11-01T00:01:00Z"))
            _ = await herald.server.engine.fireDueBatch()
            let frames = await stream.waitForEvents(1)
            #expect(frames.map(\.event) == ["notification"])
            #expect(frames.first?.json["occurrenceId"].string == "ping#0")
            #expect(frames.first?.json["alert"]["title"].string == "Ping")
            let delivery = try #require(try await herald.deliveries().first)
            #expect(delivery["occurrenceId"].string == "ping#0")
            #expect(delivery["channel"].string == "stream")
            #expect(delivery["outcome"].string == "delivered")
            // Kept until acknowledged, under the id the stream showed: a dropped stream loses nothing.
            let id = try #require(frames.first?.id.flatMap(Int.init), "a live notification frame carries its id")
            #expect(frames.first?.json["seq"].int == id)
            #expect(try await herald.wake("active").inbox.map(\.["seq"].int) == [id])
            #expect(try await herald.acknowledge(upTo: id) == 1)
            #expect(try await herald.wake("active").inbox.isEmpty)
        }
    }

    @Test("A notification for a device connected in the background (not active) with no token is held for the inbox, not streamed")
    func backgroundConnectedHeld() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await setUp(herald)
            let stream = try await live.connect()
            defer { stream.close() }
            let reply = try await herald.api.post("\(devicePath())/present", json: ["alert": ["body": "Hello"]])
            try #require(reply.status == .ok, "\(reply.text)")
            #expect(reply.json["delivery"]["channel"].string == "inbox")
            #expect(reply.json["delivery"]["outcome"].string == "held")
            try await Task.sleep(for: .milliseconds(300))
            #expect(stream.events.isEmpty)
            #expect(try await herald.wake().inbox.map(\.["alert"]["body"].string) == ["Hello"])
        }
    }
}

/// The optional `content-available` push that tells an asleep app a backlog waits.
@Suite("Coalescing: the wake push")
struct CoalescingWakePushTests {
    static let wakeToken = String(repeating: "ab", count: 32)
    static let otherToken = String(repeating: "cd", count: 32)

    @Test("Events queued for an asleep device that declared remote-notification send a background push (content-available 1, priority 5), at most coalescer.wakePushesPerHour an hour; never for a device without that mode")
    func wakePushThrottled() async throws {
        try await withSandbox { sandbox in
            try await withLifecycleHerald { live in
                let herald = live.herald
                try await herald.registerApp(push: [
                    "environment": "https://127.0.0.1:\(sandbox.port)",
                    "caFile": TestCertificates.path("dev-ca.pem"),
                    "auth": ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001",
                             "keyFile": TestCertificates.path("dev-apns-key.p8")],
                ])
                try await herald.registerDevice(["token": Self.wakeToken, "backgroundModes": ["remote-notification"]])
                try await herald.registerDevice(["token": Self.otherToken, "backgroundModes": ["fetch"]], device: "no-mode")

                func wakePushes(_ token: String, atLeast count: Int) async throws -> [InboxEntry] {
                    _ = await pollUntil(timeout: .seconds(5), interval: .milliseconds(20)) { sandbox.inbox(token: token).count >= count }
                    return sandbox.inbox(token: token)
                }

                try await herald.report([event("orientation", "landscapeLeft")])
                let first = try await wakePushes(Self.wakeToken, atLeast: 1)
                try #require(first.count == 1, "one wake push for the first backlog")
                let push = first[0]
                #expect(push.pushType == .background)
                #expect(push.priority == 5)
                #expect(push.topic == Fixture.app)
                #expect(push.aps == ["content-available": .number(1)], "aps holds only content-available: 1")
                #expect(push.headers["apns-push-type"] == "background")

                // Four more backlogs within the hour: two more pushes, then the throttle holds.
                for level in [0.1, 0.2, 0.3, 0.4] {
                    try await herald.report([event("batteryLevel", level)])
                }
                #expect(try await wakePushes(Self.wakeToken, atLeast: 3).count == 3)
                try await Task.sleep(for: .milliseconds(400))
                #expect(sandbox.inbox(token: Self.wakeToken).count == 3, "at most 3 an hour")

                // An hour later the throttle allows another.
                herald.clock.advance(by: 3601)
                try await herald.report([event("batteryLevel", 0.5)])
                #expect(try await wakePushes(Self.wakeToken, atLeast: 4).count == 4)

                // A device that did not declare remote-notification is never pushed to wake.
                let answer = try await herald.report([event("orientation", "faceUp")], device: "no-mode")
                #expect(answer["queued"].int == 1)
                try await Task.sleep(for: .milliseconds(400))
                #expect(sandbox.inbox(token: Self.otherToken).isEmpty)
            }
        }
    }

    @Test("No wake push when the queued events add up to no change (nothing waits)")
    func noWakePushWithoutBacklog() async throws {
        try await withSandbox { sandbox in
            try await withLifecycleHerald { live in
                let herald = live.herald
                try await herald.registerApp(push: [
                    "environment": "https://127.0.0.1:\(sandbox.port)",
                    "caFile": TestCertificates.path("dev-ca.pem"),
                    "auth": ["type": "token", "teamId": "DEVTEAM001", "keyId": "DEVKEY0001",
                             "keyFile": TestCertificates.path("dev-apns-key.p8")],
                ])
                try await herald.registerDevice(["token": Self.wakeToken, "backgroundModes": ["remote-notification"]])
                let answer = try await herald.report([event("accessory", key: "dock", "connected"),
                                                      event("accessory", key: "dock", "disconnected")])
                #expect(answer["backlog"].int == 0)
                try await Task.sleep(for: .milliseconds(400))
                #expect(sandbox.inbox(token: Self.wakeToken).isEmpty)
            }
        }
    }
}

// "Hand-over is acknowledged. Inbox items ... carry sequence ids and stay until the client
// acknowledges them (SSE Last-Event-ID, or an ack on wake)."
@Suite("The inbox is handed over until acknowledged")
struct InboxAcknowledgementTests {
    /// Two notifications fired into the inbox of the fixture device (asleep, no token).
    static func twoHeld(_ herald: Herald) async throws {
        try await setUp(herald)
        try await herald.schedule(notification(id: "first", fireDate: "2026-11-01T00:01:00Z"))
        try await herald.schedule(notification(id: "second", fireDate: "2026-11-01T00:02:00Z"))
        herald.clock.advance(to: Moment.instant("2026-11-01T00:02:00Z"))
        _ = await herald.server.engine.fireDueBatch()
    }

    @Test("An ack removes the items up to its sequence id and no further")
    func ackUpTo() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.twoHeld(herald)
            let inbox = try await herald.wake().inbox
            #expect(inbox.map(\.["occurrenceId"].string) == ["first#0", "second#0"])
            let seqs = inbox.compactMap(\.["seq"].int)
            try #require(seqs.count == 2 && seqs[0] < seqs[1], "sequence ids increase: \(seqs)")
            #expect(try await herald.acknowledge(upTo: seqs[0]) == 1)
            #expect(try await herald.wake().inbox.map(\.["occurrenceId"].string) == ["second#0"])
            #expect(try await herald.acknowledge(upTo: seqs[1]) == 1)
            #expect(try await herald.acknowledge(upTo: seqs[1]) == 0, "acknowledging again is harmless")
            #expect(try await herald.wake().inbox.isEmpty)
        }
    }

    @Test("A bad ack is refused and removes nothing: 422 invalidAck (negative), 422 missingField (none)")
    func badAck() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await Self.twoHeld(herald)
            let negative = try await herald.api.post("\(devicePath())/inbox/ack", json: ["upTo": -1])
            expectError(negative, status: .unprocessableContent, reason: "invalidAck")
            let missing = try await herald.api.post("\(devicePath())/inbox/ack", json: [:])
            expectError(missing, status: .unprocessableContent, reason: "missingField")
            let wakeNegative = try await herald.api.post("\(devicePath())/wake", json: ["ack": -5])
            expectError(wakeNegative, status: .unprocessableContent, reason: "invalidAck")
            #expect(try await herald.wake().inbox.count == 2)
        }
    }

    @Test("An SSE inbox frame carries its sequence id; reconnecting with Last-Event-ID acknowledges up to it")
    func lastEventIDAcknowledges() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await Self.twoHeld(herald)
            let first = try await live.connect()
            let frames = await first.waitForEvents(2)
            first.close()
            #expect(frames.map(\.event) == ["notification", "notification"])
            let ids = frames.compactMap { $0.id.flatMap(Int.init) }
            try #require(ids.count == 2, "each inbox frame has an id: \(frames)")
            #expect(ids == frames.compactMap(\.json["seq"].int))
            // Dropped after the first: reconnecting says so, and only the second comes again.
            try await Task.sleep(for: .milliseconds(200))
            let second = try await live.connect(lastEventID: ids[0])
            defer { second.close() }
            let again = await second.waitForEvents(1)
            #expect(again.map(\.id) == [String(ids[1])])
            #expect(again.first?.json["occurrenceId"].string == "second#0")
        }
    }
}

// "Hand-over is acknowledged. ... the coalesced backlog ... carry sequence ids and stay until
// the client acknowledges them (SSE Last-Event-ID, or an ack on wake)."
@Suite("The coalesced backlog is handed over until acknowledged")
struct BacklogAcknowledgementTests {
    @Test("A wake without an ack hands the same backlog over again; an ack on the next wake ends it")
    func handedOverUntilAcknowledged() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([["kind": "orientation", "value": "landscapeLeft"]])
            let first = try await herald.wake(acknowledging: false)
            let seq = try #require(first["backlogSeq"].int, "a backlog carries its sequence id: \(first)")
            #expect(first.coalesced == [Net("orientation", .string("landscapeLeft"))])
            try await herald.suspend()
            let again = try await herald.wake(acknowledging: false)
            #expect(again.coalesced == first.coalesced, "lost on the way: handed over again")
            let next = try #require(again["backlogSeq"].int)
            #expect(next > seq)
            try await herald.suspend()
            let reply = try await herald.api.post("\(devicePath())/wake", json: ["ack": next])
            #expect(reply.status == .ok)
            #expect(reply.json.coalesced.isEmpty, "acknowledged: nothing is handed over again")
            #expect(reply.json["backlogSeq"].int == nil)
        }
    }

    @Test("POST inbox/ack with the backlog's id acknowledges the backlog and the inbox items handed with it")
    func oneCursorForBoth() async throws {
        try await withLifecycleHerald { live in
            let herald = live.herald
            try await InboxAcknowledgementTests.twoHeld(herald)
            try await herald.report([["kind": "significantTimeChange"]])
            let woke = try await herald.wake(acknowledging: false)
            #expect(woke.inbox.count == 2)
            let seq = try #require(woke["backlogSeq"].int)
            #expect(woke.inbox.compactMap(\.["seq"].int).allSatisfy { $0 < seq }, "the backlog's id comes after the inbox's")
            let ack = try await herald.api.post("\(devicePath())/inbox/ack", json: ["upTo": seq])
            #expect(ack.json["acknowledged"].int == 2)
            #expect(ack.json["backlog"].bool == true)
            let after = try await herald.wake(acknowledging: false)
            #expect(after.coalesced.isEmpty && after.inbox.isEmpty)
        }
    }

    @Test("On the event stream a handedOver event's id acknowledges the backlog when the client reconnects with it")
    func lastEventIDAcknowledgesBacklog() async throws {
        try await withLifecycleHerald(transport: .live) { live in
            let herald = live.herald
            try await setUp(herald)
            try await herald.report([["kind": "batteryLevel", "value": 0.3]])
            let first = try await live.connect()
            let frames = await first.waitForEvents(2)
            first.close()
            #expect(frames.map(\.event) == ["system", "handedOver"])
            let id = try #require(frames.last?.id.flatMap(Int.init), "the handedOver event has an id: \(frames)")
            #expect(frames.first?.id == nil, "backlog frames carry no id of their own")
            try await Task.sleep(for: .milliseconds(200))
            // Reconnecting without Last-Event-ID: not acknowledged, handed over again.
            let second = try await live.connect()
            let again = await second.waitForEvents(2)
            second.close()
            #expect(again.map(\.event) == ["system", "handedOver"])
            let secondID = try #require(again.last?.id.flatMap(Int.init))
            try await Task.sleep(for: .milliseconds(200))
            let third = try await live.connect(lastEventID: secondID)
            defer { third.close() }
            try await Task.sleep(for: .milliseconds(300))
            #expect(third.events.isEmpty, "acknowledged by Last-Event-ID: \(third.frames)")
            #expect(id < secondID)
        }
    }
}
