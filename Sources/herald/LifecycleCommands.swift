import ArgumentParser
import Foundation
import HeraldClient

/// Prints a wake answer: the state, the coalesced notifications, then the inbox.
func printWake(_ wake: WakeResult) {
    print("state: \(wake.state)\(wake.woke ? " (woke)" : "")")
    if !wake.notifications.isEmpty {
        var table = Table("KIND", "KEY", "VALUE", "EVENTS")
        for item in wake.notifications {
            table.add(item.kind, cell(item.key), JSONOutput.text(item.value), String(item.count))
        }
        print(table.render())
    }
    for item in wake.inbox {
        print("inbox: \(item.occurrenceId) \(cell(item.alert?.title)): \(cell(item.alert?.body))")
    }
}

/// Acknowledges what a wake answer handed over, as a client that received it would: up to the
/// highest hand-over id in it (the backlog's, or the last inbox item's).
func acknowledgeWake(_ wake: WakeResult, client: HeraldClient, app: String, device: String) async throws {
    guard let upTo = wake.lastHandOverID else { return }
    try await client.acknowledge(app: app, device: device, upTo: upTo)
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
        let (app, device) = (try target.appID(), try target.deviceID())
        try await options.perform { client in
            let wake = try await client.setState(app: app, device: device, LifecycleState(rawValue: state))
            if !noAck { try await acknowledgeWake(wake, client: client, app: app, device: device) }
            if options.json { return try JSONOutput.print(wake) }
            printWake(wake)
        }
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
        let (app, device) = (try target.appID(), try target.deviceID())
        try await options.perform { client in
            let wake = try await client.wake(app: app, device: device, state: foreground ? .active : .background)
            if !noAck { try await acknowledgeWake(wake, client: client, app: app, device: device) }
            if options.json { return try JSONOutput.print(wake) }
            printWake(wake)
        }
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
        let (app, device) = (try target.appID(), try target.deviceID())
        // JSON when it parses, else the text as a string.
        let parsed = value.map { (try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))) ?? .string($0) }
        try await options.perform { client in
            let report = try await client.reportEvents(app: app, device: device, [SystemEvent(kind: kind, key: key, value: parsed)])
            if options.json { return try JSONOutput.print(report) }
            print("accepted: \(report.live) live, \(report.queued) queued; backlog now \(report.backlog)")
        }
    }
}
