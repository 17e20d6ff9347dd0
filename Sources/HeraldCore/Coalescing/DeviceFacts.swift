extension Device {
    /// The device as the reported events describe it: a reported time zone or locale is also
    /// the device's own (a new zone re-times its floating notifications when saved).
    ///
    /// ```swift
    /// let moved = device.withFacts(reportedIn: [SystemEvent(kind: "timeZone", value: "Asia/Tokyo")])
    /// moved.timeZone   // "Asia/Tokyo"
    /// ```
    public func withFacts(reportedIn events: [SystemEvent]) -> Device {
        var updated = self
        for event in events {
            guard case .string(let value)? = event.value else { continue }
            if event.kind == EventKind.timeZone.rawValue { updated.timeZone = value }
            if event.kind == EventKind.locale.rawValue { updated.locale = value }
        }
        return updated
    }
}
