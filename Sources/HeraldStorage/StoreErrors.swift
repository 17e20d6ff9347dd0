import HeraldCore

/// The refusals every backend gives, worded once.
extension HeraldError {
    public static func appNotFound(_ appID: String) -> HeraldError {
        .notFound(.appNotFound, "app '\(appID)' does not exist")
    }

    public static func deviceNotFound(appID: String, deviceID: String) -> HeraldError {
        .notFound(.deviceNotFound, "device '\(deviceID)' of app '\(appID)' does not exist")
    }

    public static func invalidTransition(from: LifecycleState, to: LifecycleState) -> HeraldError {
        .invalid(.invalidTransition, "a device cannot go from \(from.rawValue) to \(to.rawValue)")
    }
}
