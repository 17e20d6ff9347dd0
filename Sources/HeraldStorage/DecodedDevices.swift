import HeraldCore

/// The devices a claim has decoded from its rows, by app and id: a burst fires many
/// notifications of one device, whose columns are decoded once.
public struct DecodedDevices {
    /// Two strings, not one joined: a key per row without building a string per row.
    private struct Key: Hashable {
        var appID: String
        var deviceID: String
    }

    private var devices: [Key: Device] = [:]

    public init() {}

    /// The device `appID`/`deviceID`, decoded by `decode` the first time it is asked for.
    public mutating func device(appID: String, deviceID: String, decode: () throws -> Device) rethrows -> Device {
        let key = Key(appID: appID, deviceID: deviceID)
        if let device = devices[key] { return device }
        let device = try decode()
        devices[key] = device
        return device
    }
}
