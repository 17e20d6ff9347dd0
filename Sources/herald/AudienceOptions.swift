import ArgumentParser

/// Where `schedule`, `list`, `show`, `cancel` and `deliveries` work: a device (`--device`, or
/// `$HERALD_DEVICE`), or a broadcast channel with `--channel`, whose scheduled notifications are
/// the broadcasts it sends to every Live Activity subscribed to it.
struct AudienceOptions: ParsableArguments {
    @OptionGroup var target: DeviceOptions

    @Option(help: "Broadcast channel name, instead of a device (its scheduled Live Activity broadcasts).")
    var channel: String?

    func validate() throws {
        // $HERALD_DEVICE may stay set; only an explicit --device conflicts.
        if channel != nil, target.device != nil { throw ValidationError("give --device or --channel, not both") }
    }

    /// A device of an app, or a broadcast channel of an app.
    enum Audience {
        case device(app: String, device: String)
        case channel(app: String, name: String)
    }

    /// The device, or with `--channel` the channel, that the command works on.
    func audience() throws -> Audience {
        let app = try target.appID()
        if let channel { return .channel(app: app, name: channel) }
        return .device(app: app, device: try target.deviceID())
    }
}
