import ArgumentParser

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
        let client = options.client
        switch (app, device) {
        case (let app?, let device?):
            let reply = try await client.send("GET", "/v1/status/apps/\(app)/devices/\(device)")
            if options.json { return reply.printJSON() }
            printDevice(reply.object)
        case (let app?, nil):
            let reply = try await client.send("GET", "/v1/status/apps/\(app)")
            if options.json { return reply.printJSON() }
            printApp(reply.object)
        default:
            let reply = try await client.send("GET", "/v1/status")
            if options.json { return reply.printJSON() }
            printOverview(reply.object)
        }
    }

    private func printOverview(_ object: [String: Any]) {
        var table = Table("APP", "DEVICES", "PENDING", "PUSHES (LAST HOUR)", "INVALID TOKENS")
        for app in object["apps"] as? [[String: Any]] ?? [] {
            table.add(cell(app["app"]), cell(app["devices"]), cell(app["pending"]), outcomes(app["pushesLastHour"]),
                      cell(app["invalidTokens"]))
        }
        print(table.render())
        let outbox = object["outbox"] as? [String: Any] ?? [:]
        print("")
        print("pending notifications: \(cell(object["pendingNotifications"]))  fired, not yet delivered: \(cell(object["fireLogBacklog"]))  feedback outbox: \(cell(outbox["pending"])) pending, \(cell(outbox["parked"])) parked")
    }

    private func printApp(_ object: [String: Any]) {
        print("app \(cell(object["app"]))  pushes in the last hour: \(outcomes(object["pushesLastHour"]))")
        print("")
        var table = Table("DEVICE", "STATE", "TIME ZONE", "PENDING", "INBOX", "BACKLOG")
        for device in object["devices"] as? [[String: Any]] ?? [] {
            table.add(cell(device["device"]), cell(device["state"]), cell(device["timeZone"]), cell(device["pending"]),
                      cell(device["inbox"]), cell(device["backlog"]))
        }
        print(table.render())
    }

    private func printDevice(_ object: [String: Any]) {
        print("device \(cell(object["device"])) of \(cell(object["app"]))  state: \(cell(object["state"]))  time zone: \(cell(object["timeZone"]))")
        var pending = Table("NOTIFICATION", "TITLE", "BODY", "NEXT OCCURRENCES (UTC)")
        for item in object["pending"] as? [[String: Any]] ?? [] {
            pending.add(cell(item["id"]), cell(item["title"]), cell(item["body"]),
                        (item["nextOccurrences"] as? [String] ?? []).joined(separator: ", "))
        }
        var deliveries = Table("FIRED AT (UTC)", "NOTIFICATION", "CHANNEL", "OUTCOME", "APNS STATUS")
        for item in object["deliveries"] as? [[String: Any]] ?? [] {
            deliveries.add(cell(item["firedAt"]), cell(item["notificationId"]), cell(item["channel"]), cell(item["outcome"]),
                           cell(item["apnsStatus"]))
        }
        var inbox = Table("SEQ", "NOTIFICATION", "FIRED AT (UTC)")
        for item in object["inbox"] as? [[String: Any]] ?? [] {
            inbox.add(cell(item["seq"]), cell(item["notificationId"]), cell(item["firedAt"]))
        }
        var backlog = Table("KIND", "KEY", "EVENTS")
        for item in object["backlog"] as? [[String: Any]] ?? [] {
            backlog.add(cell(item["kind"]), cell(item["key"]), cell(item["count"]))
        }
        for (title, table) in [("pending notifications", pending), ("recent deliveries", deliveries), ("inbox", inbox),
                               ("coalesced backlog", backlog)] {
            print("\n\(title):")
            print(table.rows.isEmpty ? "(none)" : table.render())
        }
    }

    /// `{"accepted": 3, "unregistered": 1}` as "3 accepted, 1 unregistered".
    private func outcomes(_ value: Any?) -> String {
        let counts = (value as? [String: Any] ?? [:]).compactMap { key, count in (count as? Int).map { (key, $0) } }
        return counts.isEmpty ? "none" : counts.sorted { $0.0 < $1.0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
    }
}
