import ArgumentParser
import HeraldClient

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
        _ = try content.content(liveActivity: liveActivity)
    }

    func run() async throws {
        var rule: RepeatRule?
        if let repeatUnit {
            rule = RepeatRule(unit: RepeatRule.Unit(rawValue: repeatUnit), every: every, count: count, until: until)
        } else if every != nil || count != nil || until != nil {
            throw ValidationError("--every, --count and --until need --repeat")
        }
        let request = try content.notificationRequest(fireDate: at, timeZone: timeZone, repeat: rule, liveActivity: liveActivity)
        let audience = try target.audience()
        try await options.perform { client in
            let result = switch audience {
            case .device(let app, let device): try await client.schedule(app: app, device: device, request)
            case .channel(let app, let name): try await client.scheduleBroadcast(app: app, channel: name, request)
            }
            if options.json { return try Self.printJSON(result) }
            if let notification = result.notification, result.stored {
                print("scheduled \(notification.id) next fires at \(instantText(notification.nextFireDate))")
            } else {
                print("not stored: keepSoonest evicted it at once (it fires later than the 128 others)")
            }
            if !result.evicted.isEmpty {
                print("evicted: \(result.evicted.joined(separator: ", "))")
            }
        }
    }

    /// The answer as the server gives it: the notification's fields with `stored`, `replaced`
    /// and `evicted` beside them.
    static func printJSON(_ result: ScheduleResult) throws {
        var object = try result.notification.map { try JSONOutput.value($0).objectValue ?? [:] } ?? [:]
        object["stored"] = .bool(result.stored)
        object["replaced"] = .bool(result.replaced)
        object["evicted"] = .array(result.evicted.map(JSONValue.string))
        try JSONOutput.print(JSONValue.object(object))
    }
}
