import HeraldCore

/// The devices a claim has decoded from its rows, by app and id: a burst fires many
/// notifications of one device, whose columns are decoded once.
public struct DecodedDevices {
    private var devices: [String: Device] = [:]

    public init() {}

    /// The device `appID`/`deviceID`, decoded by `decode` the first time it is asked for.
    public mutating func device(appID: String, deviceID: String, decode: () throws -> Device) rethrows -> Device {
        let key = appID + "\u{0}" + deviceID
        if let device = devices[key] { return device }
        let device = try decode()
        devices[key] = device
        return device
    }
}
