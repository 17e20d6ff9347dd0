/// What a `PUT` stored: the resource as the server now holds it, and whether the call created it
/// (HTTP 201) or replaced one that was there (200).
///
/// Its properties read through to the resource:
///
/// ```swift
/// let saved = try await client.putDevice(app: "com.example.alarm", device: "phone-1",
///                                        DeviceRegistration(timeZone: "Europe/Paris"))
/// print(saved.created ? "registered" : "updated", saved.timeZone)
/// ```
@dynamicMemberLookup
public struct Saved<Value: Sendable>: Sendable {
    /// The resource as stored.
    public var value: Value
    /// True when the call created the resource; false when it replaced an existing one.
    public var created: Bool

    public init(value: Value, created: Bool) {
        self.value = value
        self.created = created
    }

    public subscript<Property>(dynamicMember keyPath: KeyPath<Value, Property>) -> Property {
        value[keyPath: keyPath]
    }
}

extension Saved: Equatable where Value: Equatable {}
