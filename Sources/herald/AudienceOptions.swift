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

    /// `/v1/apps/{app}/devices/{device}` or `/v1/apps/{app}/channels/{name}`.
    func path() throws -> String {
        guard let channel else { return try target.path() }
        return "/v1/apps/\(try target.appID())/channels/\(channel)"
    }
}
