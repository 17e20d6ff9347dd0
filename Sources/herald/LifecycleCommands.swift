import ArgumentParser
import Foundation

/// Prints a wake answer: the state, the coalesced notifications, then the inbox.
func printWake(_ object: [String: Any]) {
    print("state: \(cell(object["state"]))\(object["woke"] as? Bool == true ? " (woke)" : "")")
    let notifications = object["notifications"] as? [[String: Any]] ?? []
    if !notifications.isEmpty {
        var table = Table("KIND", "KEY", "VALUE", "EVENTS")
        for item in notifications {
            let value = item["value"].map { value -> String in
                guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) else { return cell(value) }
                return String(decoding: data, as: UTF8.self)
            }
            table.add(cell(item["kind"]), cell(item["key"]), value ?? "-", cell(item["count"]))
        }
        print(table.render())
    }
    let inbox = object["inbox"] as? [[String: Any]] ?? []
    for item in inbox {
        let alert = item["alert"] as? [String: Any]
        print("inbox: \(cell(item["occurrenceId"])) \(cell(alert?["title"])): \(cell(alert?["body"]))")
    }
}

/// Acknowledges what a wake answer handed over, as a client that received it would: up to the
/// highest sequence id in it (the backlog's, or the last inbox item's).
func acknowledgeWake(_ object: [String: Any], client: HeraldClient, devicePath: String) async throws {
    let inbox = (object["inbox"] as? [[String: Any]] ?? []).compactMap { ($0["seq"] as? NSNumber)?.int64Value }
    let ids = inbox + [(object["backlogSeq"] as? NSNumber)?.int64Value].compactMap { $0 }
    guard let upTo = ids.max() else { return }
    _ = try await client.send("POST", "\(devicePath)/inbox/ack", json: ["upTo": upTo])
}

/// `herald state STATE`: report the device's lifecycle state.
struct StateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state", abstract: "Set a device's lifecycle state (notRunning, inactive, active, background, suspended).")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: DeviceOptions
    @Argument(help: "The new state.") var state: String
    @Flag(help: "Leave what a wake hands over unacknowledged (it is handed over again next time).") var noAck = false

    func run() async throws {
        let client = options.client
        let reply = try await client.send("PUT", "\(try target.path())/state", json: ["state": state])
        if !noAck { try await acknowledgeWake(reply.object, client: client, devicePath: try target.path()) }
        if options.json { return reply.printJSON() }
        printWake(reply.object)
    }
}

/// `herald wake`: wake a device and print what was waiting for it.
struct WakeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wake", abstract: "Wake a device: deliver its coalesced backlog and inbox.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: DeviceOptions
    @Flag(help: "Wake into the foreground (active) rather than background.") var foreground = false
    @Flag(help: "Leave what it hands over unacknowledged (it is handed over again next time).") var noAck = false

    func run() async throws {
        let client = options.client
        let reply = try await client.send("POST", "\(try target.path())/wake",
                                          json: ["state": foreground ? "active" : "background"])
        if !noAck { try await acknowledgeWake(reply.object, client: client, devicePath: try target.path()) }
        if options.json { return reply.printJSON() }
        printWake(reply.object)
    }
}

/// `herald event KIND [VALUE]`: report a system event for a device.
struct EventCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event", abstract: "Report a system event (orientation, batteryLevel, accessory, settings, ...).",
        discussion: "VALUE is read as JSON when it parses (0.5, true, {\"a\":1}), else as a string.")

    @OptionGroup var options: ClientOptions
    @OptionGroup var target: DeviceOptions
    @Argument(help: "Event kind.") var kind: String
    @Argument(help: "Event value.") var value: String?
    @Option(help: "Key, for keyed kinds (accessory id, screen id, setting name).") var key: String?

    func run() async throws {
        var event: [String: Any] = ["kind": kind]
        if let key { event["key"] = key }
        if let value {
            event["value"] = (try? JSONSerialization.jsonObject(with: Data(value.utf8), options: [.fragmentsAllowed])) ?? value
        }
        let reply = try await options.client.send("POST", "\(try target.path())/events", json: ["events": [event]])
        if options.json { return reply.printJSON() }
        let object = reply.object
        print("accepted: \(cell(object["live"])) live, \(cell(object["queued"])) queued; backlog now \(cell(object["backlog"]))")
    }
}
