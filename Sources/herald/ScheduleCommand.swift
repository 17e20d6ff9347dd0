import ArgumentParser

/// `herald schedule`: store a local notification for a device.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule", abstract: "Schedule a local notification.",
        discussion: """
            --at takes a wall-clock time (2026-12-01T07:30) with --time-zone (an IANA id or "floating"), \
            or an instant with Z or an offset (2026-12-01T06:30:00Z) without one.
            """)

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: DeviceOptions
    @Option(help: "Fire date.") var at: String
    @Option(help: "IANA time zone, or \"floating\" for the device's current zone.") var timeZone: String?
    @Option(name: .customLong("repeat"), help: "minute, hour, day, week, month, quarter or year.") var repeatUnit: String?
    @Option(help: "Repeat every N units (default 1).") var every: Int?
    @Option(help: "Stop after N occurrences in all.") var count: Int?
    @Option(help: "Stop after this date.") var until: String?
    @OptionGroup var content: ContentOptions

    func run() async throws {
        var body = try content.fields()
        body["fireDate"] = at
        if let timeZone { body["timeZone"] = timeZone }
        if let repeatUnit {
            var rule: [String: Any] = ["unit": repeatUnit]
            if let every { rule["every"] = every }
            if let count { rule["count"] = count }
            if let until { rule["until"] = until }
            body["repeat"] = rule
        } else if every != nil || count != nil || until != nil {
            throw ValidationError("--every, --count and --until need --repeat")
        }
        let reply = try await options.client.send("POST", "\(try target.path())/notifications", json: body)
        if options.json { return reply.printJSON() }
        let object = reply.object
        if object["stored"] as? Bool == false {
            print("not stored: keepSoonest evicted it at once (it fires later than the 128 others)")
        } else {
            print("scheduled \(cell(object["id"])) next fires at \(cell(object["nextFireDate"]))")
        }
        if let evicted = object["evicted"] as? [String], !evicted.isEmpty {
            print("evicted: \(evicted.joined(separator: ", "))")
        }
    }
}
