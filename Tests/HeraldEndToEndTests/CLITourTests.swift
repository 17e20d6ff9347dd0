import Foundation
import HeraldTestSupport
import Testing

/// The next `count` instants (UTC text) of a daily 07:30 Europe/Paris series anchored on
/// 2026-12-01, after `now`: computed with Foundation's calendar, independently of Herald.
private func parisDailyAt0730(after now: Date, count: Int) -> [String] {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "Europe/Paris")!
    let anchor = calendar.date(from: DateComponents(year: 2026, month: 12, day: 1, hour: 7, minute: 30))!
    var instants: [String] = []
    var day = 0
    while instants.count < count {
        let date = calendar.date(byAdding: .day, value: day, to: anchor)!
        if date > now { instants.append(utc(date)) }
        day += 1
    }
    return instants
}

@Suite("CLI against a running server")
struct CLITourTests {
    @Test("The README tour: app put, device put, schedule, show, list, in tables and as --json")
    func readmeTour() async throws {
        try await withScratch { scratch in
            try await withServer(in: scratch) { server in
                let environment = ["HERALD_SERVER": server.baseURL]
                func herald(_ arguments: String...) async throws -> CommandResult {
                    try await runHerald(arguments, environment: environment, in: scratch)
                }
                let target = ["--app", "com.example.alarm", "--device", "iphone-1"]

                let app = try await herald("app", "put", "com.example.alarm")
                #expect(app.succeeded, "\(app)")
                #expect(app.stdout.contains("app com.example.alarm created"), "\(app)")

                let device = try await herald("device", "put", "com.example.alarm", "iphone-1", "--time-zone", "Europe/Paris")
                #expect(device.succeeded, "\(device)")
                #expect(device.stdout.contains("device iphone-1 created"), "\(device)")

                let before = Date()
                let expected = parisDailyAt0730(after: before, count: 3)
                let schedule = try await runHerald(
                    ["schedule"] + target + ["--id", "wake-up", "--at", "2026-12-01T07:30", "--time-zone", "Europe/Paris",
                                             "--repeat", "day", "--title", "Good morning", "--body", "Time to get up"],
                    environment: environment, in: scratch)
                #expect(schedule.succeeded, "\(schedule)")
                #expect(schedule.stdout.contains("scheduled wake-up next fires at \(expected[0])"), "\(schedule)")

                let show = try await runHerald(["show", "wake-up"] + target + ["--occurrences", "3"],
                                               environment: environment, in: scratch)
                #expect(show.succeeded, "\(show)")
                #expect(show.stdout.contains("wake-up"))
                #expect(show.stdout.contains("Good morning"))
                #expect(show.stdout.contains("every day"))
                #expect(show.stdout.contains("upcoming (UTC):"))
                for instant in expected {
                    #expect(show.stdout.contains(instant), "show lists \(instant): \(show)")
                }

                let list = try await runHerald(["list"] + target, environment: environment, in: scratch)
                #expect(list.succeeded, "\(list)")
                let rows = list.stdout.split(separator: "\n")
                #expect(rows.count == 2, "a header and one row: \(list)")
                #expect(rows.first?.hasPrefix("ID") == true)
                let row = String(rows.last ?? "")
                for cell in ["wake-up", expected[0], "2026-12-01T07:30:00", "Europe/Paris", "every day", "Good morning",
                             "Time to get up"] {
                    #expect(row.contains(cell), "the list row shows \(cell): \(row)")
                }

                // --json prints the server's JSON.
                let listJSON = try await runHerald(["list", "--json"] + target, environment: environment, in: scratch)
                #expect(listJSON.succeeded, "\(listJSON)")
                let notifications = try listJSON.jsonObject().objects("notifications")
                #expect(notifications.map { $0.string("id") } == ["wake-up"])
                #expect(notifications.first?.string("nextFireDate") == expected[0])
                #expect(notifications.first?.string("timeZone") == "Europe/Paris")
                #expect(notifications.first?.object("repeat")?.string("unit") == "day")
                #expect(notifications.first?.object("alert")?.string("title") == "Good morning")

                let showJSON = try await runHerald(["show", "wake-up", "--json", "--occurrences", "3"] + target,
                                                   environment: environment, in: scratch)
                #expect(showJSON.succeeded, "\(showJSON)")
                #expect(try showJSON.jsonObject().strings("occurrences") == expected)

                let deviceJSON = try await herald("device", "show", "com.example.alarm", "iphone-1", "--json")
                #expect(try deviceJSON.jsonObject().string("state") == "notRunning")
                #expect(try deviceJSON.jsonObject().string("timeZone") == "Europe/Paris")

                let appJSON = try await herald("app", "show", "com.example.alarm", "--json")
                #expect(try appJSON.jsonObject().string("overflow") == "reject")
            }
        }
    }

    @Test("A refused command exits non-zero and prints the server's reason; nothing is stored")
    func refusedCommand() async throws {
        try await withScratch { scratch in
            try await withServer(in: scratch) { server in
                let environment = ["HERALD_SERVER": server.baseURL, "HERALD_APP": "com.example.alarm",
                                   "HERALD_DEVICE": "iphone-1"]
                func herald(_ arguments: String...) async throws -> CommandResult {
                    try await runHerald(arguments, environment: environment, in: scratch)
                }
                #expect(try await herald("app", "put", "com.example.alarm").succeeded)
                #expect(try await herald("device", "put", "com.example.alarm", "iphone-1", "--time-zone", "Europe/Paris").succeeded)

                let unknownZone = try await herald("schedule", "--at", "2026-12-01T07:30", "--time-zone", "Mars/Olympus_Mons",
                                                   "--body", "Never")
                #expect(!unknownZone.succeeded)
                #expect(unknownZone.output.contains("invalidTimeZone"), "\(unknownZone)")

                let noZone = try await herald("schedule", "--at", "2026-12-01T07:30", "--body", "Never")
                #expect(!noZone.succeeded)
                #expect(noZone.output.contains("timeZoneRequired"), "\(noZone)")

                let missing = try await herald("show", "no-such-notification")
                #expect(!missing.succeeded)
                #expect(missing.output.contains("notificationNotFound"), "\(missing)")

                let badDevice = try await herald("device", "put", "com.example.alarm", "ipad-2", "--time-zone", "Nowhere/Land")
                #expect(!badDevice.succeeded)
                #expect(badDevice.output.contains("invalidTimeZone"), "\(badDevice)")

                let list = try await herald("list", "--json")
                #expect(try list.jsonObject().objects("notifications").isEmpty, "refusals stored nothing")
            }
        }
    }

    @Test("A client command with no server to talk to exits non-zero and says which URL it tried")
    func unreachableServer() async throws {
        try await withScratch { scratch in
            // Port 9 (discard) on loopback: nothing listens there.
            let result = try await runHerald(["app", "show", "com.example.alarm", "--server", "http://127.0.0.1:9"], in: scratch)
            #expect(!result.succeeded)
            #expect(result.output.contains("http://127.0.0.1:9"), "\(result)")
        }
    }

    @Test("Watch one fire: a notification scheduled 2 s ahead shows up in herald deliveries, on time")
    func watchOneFire() async throws {
        try await withScratch { scratch in
            try await withServer(in: scratch) { server in
                let environment = ["HERALD_SERVER": server.baseURL, "HERALD_APP": "com.example.alarm",
                                   "HERALD_DEVICE": "iphone-1"]
                func herald(_ arguments: [String]) async throws -> CommandResult {
                    try await runHerald(arguments, environment: environment, in: scratch)
                }
                #expect(try await herald(["app", "put", "com.example.alarm"]).succeeded)
                #expect(try await herald(["device", "put", "com.example.alarm", "iphone-1", "--time-zone", "Europe/Paris"]).succeeded)

                let fireDate = wholeSecond(after: 2)
                let scheduled = try await herald(["schedule", "--id", "tick", "--at", utc(fireDate), "--body", "Tick", "--json"])
                #expect(scheduled.succeeded, "\(scheduled)")
                #expect(try scheduled.jsonObject().string("nextFireDate") == utc(fireDate))

                let delivery = try await eventually(timeout: .seconds(10), interval: .milliseconds(250)) { () -> JSONObject? in
                    let result = try await herald(["deliveries", "--json"])
                    return try result.jsonObject().objects("deliveries").first { $0.string("occurrenceId") == "tick#0" }
                }
                let fired = try #require(delivery, "tick#0 did not fire within 10 s")
                #expect(fired.string("scheduledFor") == utc(fireDate))
                #expect(fired.bool("late") == false, "it fired on time")
                #expect(fired.int("missed") == 0)
                let firedAt = try #require(instant(fired.string("firedAt")))
                #expect(firedAt >= fireDate, "never early")
                #expect(firedAt.timeIntervalSince(fireDate) < 1)

                // The one-shot is gone from the list once it fired.
                let list = try await herald(["list", "--json"])
                #expect(try list.jsonObject().objects("notifications").isEmpty)
            }
        }
    }
}
