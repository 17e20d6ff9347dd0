import Foundation
import HeraldTestSupport
import Testing

/// Round-robin interleaving of several event streams, so a burst mixes kinds.
private func interleave(_ lists: [[[String: Any]]]) -> [[String: Any]] {
    var mixed: [[String: Any]] = []
    let longest = lists.map(\.count).max() ?? 0
    for index in 0..<longest {
        for list in lists where index < list.count { mixed.append(list[index]) }
    }
    return mixed
}

@Suite("Coalescing end to end: the real server and the herald CLI")
struct CoalescingEndToEndTests {
    @Test("Suspend, report a burst of mixed events, wake with herald wake: one notification per kind and key with the net change")
    func burstThenWake() async throws {
        try await withScratch { scratch in
            try await withLifecycleServer(in: scratch) { server in
                let environment = LifecycleTarget.environment(server)
                func herald(_ arguments: String...) async throws -> CommandResult {
                    let result = try await runHerald(arguments, environment: environment, in: scratch)
                    #expect(result.succeeded, "herald \(arguments.joined(separator: " ")): \(result)")
                    return result
                }
                let app = try await http("PUT", "\(server.baseURL)/v1/apps/\(LifecycleTarget.app)", json: [
                    "customKinds": [["name": "unreadCount", "rule": "sum"], ["name": "changedRecords", "rule": "union"]],
                ])
                try #require(app.status == 201, "\(String(decoding: app.body, as: UTF8.self))")
                _ = try await herald("device", "put", LifecycleTarget.app, LifecycleTarget.device, "--time-zone", "Europe/Paris")

                // The client runs and receives portrait and sound on: what later backlogs are measured against.
                _ = try await herald("state", "active")
                _ = try await herald("event", "orientation", "portrait")
                _ = try await herald("event", "settings", "true", "--key", "sound")
                let baseline = try await herald("wake", "--foreground", "--json").jsonObject()
                #expect(baseline.objects("notifications").map(netLine) == [
                    netLine(kind: "orientation", value: "portrait"), netLine(kind: "settings", key: "sound", value: true),
                ])

                // iOS suspends it.
                _ = try await herald("state", "background")
                let suspended = try await herald("state", "suspended", "--json").jsonObject()
                #expect(suspended.string("state") == "suspended")
                #expect(suspended.bool("woke") == false)

                typealias Event = [String: Any]
                let orientations = ["landscapeLeft", "faceUp", "portrait"]
                // Orientation flips, ending on portrait: the value delivered, so no change.
                let orientation: [Event] = (0..<42).map { index -> Event in ["kind": "orientation", "value": orientations[index % 3]] }
                // The battery drains from 1.00 to 0.21.
                let battery: [Event] = (0..<80).map { index -> Event in ["kind": "batteryLevel", "value": Double(100 - index) / 100] }
                // Five accessories come and go; a3 comes back and stays.
                var accessories: [Event] = []
                for id in ["a1", "a2", "a3", "a4", "a5"] {
                    accessories.append(["kind": "accessory", "key": id, "value": "connected"])
                    accessories.append(["kind": "accessory", "key": id, "value": "disconnected"])
                }
                accessories.append(["kind": "accessory", "key": "a3", "value": "connected"])
                // Sound off and on again (no change); volume up to 10.
                var settings: [Event] = [["kind": "settings", "key": "sound", "value": false],
                                         ["kind": "settings", "key": "sound", "value": true]]
                settings += (1...10).map { level -> Event in ["kind": "settings", "key": "volume", "value": level] }
                let timeChanges: [Event] = Array(repeating: ["kind": "significantTimeChange"], count: 7)
                let unread: [Event] = Array(repeating: ["kind": "unreadCount", "value": 1], count: 25)
                let records: [Event] = (0..<20).map { index -> Event in ["kind": "changedRecords", "value": "r\(index % 4)"] }
                let burst = interleave([orientation, battery, accessories, settings, timeChanges, unread, records])
                #expect(burst.count == 197)
                let reply = try await http("POST", "\(LifecycleTarget.path(server))/events", json: ["events": burst])
                try #require(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
                #expect(reply.json.int("accepted") == burst.count)
                #expect(reply.json.int("queued") == burst.count)
                #expect(reply.json.int("live") == 0)
                #expect(reply.json.int("backlog") == 6)

                // A few more from the CLI.
                let reported = try await herald("event", "batteryState", "charging")
                #expect(reported.stdout.contains("0 live, 1 queued"), "\(reported)")
                _ = try await herald("event", "settings", "dark", "--key", "theme")

                let woke = try await herald("wake", "--json").jsonObject()
                #expect(woke.string("state") == "background")
                #expect(woke.bool("woke") == true)
                #expect(woke.objects("notifications").map(netLine) == [
                    netLine(kind: "accessory", key: "a3", value: "connected", count: 3),
                    netLine(kind: "significantTimeChange", count: 7),
                    netLine(kind: "batteryLevel", value: 0.21, count: 80),
                    netLine(kind: "batteryState", value: "charging"),
                    netLine(kind: "settings", key: "theme", value: "dark"),
                    netLine(kind: "settings", key: "volume", value: 10, count: 10),
                    netLine(kind: "changedRecords", value: ["r0", "r1", "r2", "r3"], count: 20),
                    netLine(kind: "unreadCount", value: 25, count: 25),
                ], "orientation back to portrait and sound back on are no change")
                #expect(woke.objects("inbox").isEmpty)

                let again = try await herald("wake")
                #expect(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "state: background (woke)",
                        "nothing is delivered twice: \(again)")
            }
        }
    }

    @Test("herald state, event and wake print what happened, and exit non-zero with the server's reason when refused")
    func lifecycleCommands() async throws {
        try await withScratch { scratch in
            try await withLifecycleServer(in: scratch) { server in
                let environment = LifecycleTarget.environment(server)
                func herald(_ arguments: String...) async throws -> CommandResult {
                    try await runHerald(arguments, environment: environment, in: scratch)
                }
                #expect(try await herald("app", "put", LifecycleTarget.app).succeeded)
                #expect(try await herald("device", "put", LifecycleTarget.app, LifecycleTarget.device, "--time-zone", "Europe/Paris").succeeded)

                let active = try await herald("state", "active")
                #expect(active.succeeded, "\(active)")
                #expect(active.stdout.contains("state: active (woke)"), "asleep to awake is a wake: \(active)")

                let refusedSuspend = try await herald("state", "suspended")
                #expect(!refusedSuspend.succeeded)
                #expect(refusedSuspend.output.contains("invalidTransition"), "\(refusedSuspend)")
                let unknownState = try await herald("state", "asleep")
                #expect(!unknownState.succeeded)
                #expect(unknownState.output.contains("invalidState"), "\(unknownState)")
                #expect(try await LifecycleTarget.state(server) == "active", "refusals changed nothing")

                let background = try await herald("state", "background")
                #expect(background.stdout.contains("state: background"), "\(background)")
                #expect(!background.stdout.contains("woke"), "awake to awake is not a wake: \(background)")
                let suspended = try await herald("state", "suspended")
                #expect(suspended.succeeded, "\(suspended)")
                #expect(suspended.stdout.contains("state: suspended"), "\(suspended)")

                let orientation = try await herald("event", "orientation", "landscapeLeft")
                #expect(orientation.succeeded, "\(orientation)")
                #expect(orientation.stdout.contains("0 live, 1 queued; backlog now 1"), "\(orientation)")
                let accessory = try await herald("event", "accessory", "connected", "--key", "dock-1")
                #expect(accessory.stdout.contains("backlog now 2"), "\(accessory)")
                let level = try await herald("event", "batteryLevel", "0.5", "--json")
                #expect(try level.jsonObject().int("backlog") == 3, "\(level)")

                for (arguments, reason) in [
                    (["event", "batteryLevel", "2"], "invalidEventValue"),
                    (["event", "warpDrive", "on"], "unknownEventKind"),
                    (["event", "accessory", "connected"], "missingEventKey"),
                    (["event", "orientation", "portrait", "--key", "main"], "unexpectedEventKey"),
                    (["event", "timeZone", "Nowhere/Land"], "invalidEventValue"),
                    (["wake", "--device", "ghost"], "deviceNotFound"),
                ] {
                    let refused = try await runHerald(arguments, environment: environment, in: scratch)
                    #expect(!refused.succeeded, "herald \(arguments.joined(separator: " ")) should fail: \(refused)")
                    #expect(refused.output.contains(reason), "herald \(arguments.joined(separator: " ")): \(refused)")
                }

                let wake = try await herald("wake")
                #expect(wake.succeeded, "\(wake)")
                let lines = wake.stdout.split(separator: "\n").map(String.init)
                try #require(lines.count == 5, "state line, header, three rows: \(wake)")
                #expect(lines[0] == "state: background (woke)")
                for column in ["KIND", "KEY", "VALUE", "EVENTS"] {
                    #expect(lines[1].contains(column), "\(lines[1])")
                }
                // Rows in catalog order: accessory, orientation, batteryLevel.
                #expect(lines[2].split(separator: " ", omittingEmptySubsequences: true) == ["accessory", "dock-1", "\"connected\"", "1"])
                #expect(lines[3].split(separator: " ", omittingEmptySubsequences: true) == ["orientation", "-", "\"landscapeLeft\"", "1"])
                #expect(lines[4].split(separator: " ", omittingEmptySubsequences: true) == ["batteryLevel", "-", "0.5", "1"])

                let foreground = try await herald("wake", "--foreground", "--json")
                let object = try foreground.jsonObject()
                #expect(object.string("state") == "active")
                #expect(object.bool("woke") == true)
                #expect(object.objects("notifications").isEmpty)
            }
        }
    }
}
