import ArgumentParser

/// `herald schedule`: store a local notification for a device, or a broadcast for a channel.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule", abstract: "Schedule a local notification or a Live Activity push.",
        discussion: """
            --at takes a wall-clock time (2026-12-01T07:30) with --time-zone (an IANA id or "floating"), \
            or an instant with Z or an offset (2026-12-01T06:30:00Z) without one.

            With --live-activity, each occurrence sends a Live Activity push instead of an alert: \
            --title, --subtitle and --body become the activity's optional alert. With --channel, the \
            notification is a broadcast on that channel (an update or end, naming no --activity).
            """)

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: AudienceOptions
    @Option(help: "Fire date.") var at: String
    @Option(help: "IANA time zone, or \"floating\" for the device's current zone.") var timeZone: String?
    @Option(name: .customLong("repeat"), help: "minute, hour, day, week, month, quarter or year.") var repeatUnit: String?
    @Option(help: "Repeat every N units (default 1).") var every: Int?
    @Option(help: "Stop after N occurrences in all.") var count: Int?
    @Option(help: "Stop after this date.") var until: String?
    @OptionGroup var content: ContentOptions
    @OptionGroup var liveActivity: LiveActivityOptions

    func validate() throws {
        if target.channel != nil, liveActivity.event == nil {
            throw ValidationError("--channel schedules a Live Activity broadcast: add --live-activity update|end")
        }
        // Checks the content now, so the error comes with this command's usage.
        _ = try content.fields(liveActivity: liveActivity)
    }

    func run() async throws {
        var body = try content.fields(liveActivity: liveActivity)
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
