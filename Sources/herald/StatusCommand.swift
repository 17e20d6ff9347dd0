import ArgumentParser
import HeraldClient

/// `herald status [--app APP [--device DEVICE]]`: what the status page shows, as tables.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the server's, an app's or a device's status (what /ui shows).",
        discussion: "Without --app: every app, pending work and the outbox. With --app: the app's devices. With --device too: its pending notifications, recent deliveries, inbox and coalesced backlog.")

    @OptionGroup var options: ClientOptions
    @Option(help: "An app's status: its devices.") var app: String?
    @Option(help: "A device's status (needs --app).") var device: String?

    func validate() throws {
        if device != nil, app == nil { throw ValidationError("--device needs --app") }
    }

    func run() async throws {
        try await options.perform { client in
            switch (app, device) {
            case (let app?, let device?):
                let status = try await client.status(app: app, device: device)
                if options.json { return try JSONOutput.print(status) }
                printDevice(status)
            case (let app?, nil):
                let status = try await client.status(app: app)
                if options.json { return try JSONOutput.print(status) }
                printApp(status)
            default:
                let status = try await client.status()
                if options.json { return try JSONOutput.print(status) }
                printOverview(status)
            }
        }
    }

    private func printOverview(_ status: StatusOverview) {
        var table = Table("APP", "DEVICES", "PENDING", "PUSHES (LAST HOUR)", "INVALID TOKENS")
        for app in status.apps {
            table.add(app.app, String(app.devices), String(app.pending), outcomes(app.pushesLastHour), String(app.invalidTokens))
        }
        print(table.render())
        print("")
        print("pending notifications: \(status.pendingNotifications)  fired, not yet delivered: \(status.fireLogBacklog)  feedback outbox: \(cell(status.outbox["pending"])) pending, \(cell(status.outbox["parked"])) parked")
    }

    private func printApp(_ status: AppStatus) {
        print("app \(status.app)  pushes in the last hour: \(outcomes(status.pushesLastHour))")
        print("")
        var table = Table("DEVICE", "STATE", "TIME ZONE", "PENDING", "INBOX", "BACKLOG")
        for device in status.devices {
            table.add(device.device, device.state.rawValue, device.timeZone, String(device.pending), String(device.inbox),
                      String(device.backlog))
        }
        print(table.render())
    }

    private func printDevice(_ status: DeviceStatus) {
        print("device \(status.device) of \(status.app)  state: \(status.state)  time zone: \(status.timeZone)")
        var pending = Table("NOTIFICATION", "TITLE", "BODY", "NEXT OCCURRENCES (UTC)")
        for item in status.pending {
            pending.add(item.id, cell(item.title), item.body, item.nextOccurrences.map(instantText).joined(separator: ", "))
        }
        var deliveries = Table("FIRED AT (UTC)", "NOTIFICATION", "CHANNEL", "OUTCOME", "APNS STATUS")
        for item in status.deliveries {
            deliveries.add(instantText(item.firedAt), item.notificationId, item.channel.rawValue, item.outcome.rawValue,
                           cell(item.apnsStatus))
        }
        var inbox = Table("SEQ", "NOTIFICATION", "FIRED AT (UTC)")
        for item in status.inbox {
            inbox.add(String(item.seq), item.notificationId, instantText(item.firedAt))
        }
        var backlog = Table("KIND", "KEY", "EVENTS")
        for item in status.backlog {
            backlog.add(item.kind, cell(item.key), String(item.count))
        }
        for (title, table) in [("pending notifications", pending), ("recent deliveries", deliveries), ("inbox", inbox),
                               ("coalesced backlog", backlog)] {
            print("\n\(title):")
            print(table.rows.isEmpty ? "(none)" : table.render())
        }
    }

    /// `{"accepted": 3, "unregistered": 1}` as "3 accepted, 1 unregistered".
    private func outcomes(_ counts: [String: Int]) -> String {
        counts.isEmpty ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }
}
