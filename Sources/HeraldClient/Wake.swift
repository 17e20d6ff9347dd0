import Foundation

extension HeraldClient {
    /// Wakes a device and hands over what waited for it (`POST .../wake`): the coalesced system
    /// notifications, then the inbox.
    ///
    /// What was handed over stays on the server until acknowledged. The client remembers the
    /// highest hand-over id it returned for the device and acknowledges it on the next wake
    /// (the body's `ack`), when the event stream connects, or with
    /// ``acknowledge(app:device:upTo:)``; a caller that crashes before processing simply gets it again.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter state: `background` (the default) or `active`.
    /// - parameter acknowledging: What to acknowledge before waking; nil: what this client last
    ///   returned for the device, if anything.
    /// - returns: The new state, the coalesced notifications and the inbox.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`, 422 `invalidState`, `invalidAck`.
    ///
    /// ```swift
    /// let wake = try await client.wake(app: "com.example.alarm", device: "phone-1")
    /// for event in wake.notifications { apply(event) }
    /// for item in wake.inbox { show(item) }
    /// // The next wake acknowledges them.
    /// ```
    public func wake(app: String, device: String, state: LifecycleState = .background,
                     acknowledging: Int64? = nil) async throws -> WakeResult {
        struct Body: Encodable { var state: String; var ack: Int64? }
        let ack = acknowledging ?? lastHandOver(app: app, device: device)
        let result = try await send("POST", Self.devicePath(app, device) + "/wake", body: Body(state: state.rawValue, ack: ack),
                                    as: WakeResult.self)
        remember(result.lastHandOverID, app: app, device: device)
        return result
    }

    /// Acknowledges what was handed over up to a hand-over id (`POST .../inbox/ack`): inbox
    /// items, and the backlog when `upTo` reaches its `backlogSeq`.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter upTo: The highest id received (an inbox item's `seq`, a `backlogSeq`, an event id).
    /// - returns: What the acknowledgement removed.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`, 422 `invalidAck`.
    @discardableResult
    public func acknowledge(app: String, device: String, upTo: Int64) async throws -> Acknowledgement {
        struct Body: Encodable { var upTo: Int64 }
        let answer = try await send("POST", Self.devicePath(app, device) + "/inbox/ack", body: Body(upTo: upTo),
                                    as: Acknowledgement.self)
        remember(upTo, app: app, device: device)
        return answer
    }

    /// Sets a device's lifecycle state (`PUT .../state`). Moving to `active` or `background`
    /// wakes an asleep device: use ``wake(app:device:state:acknowledging:)`` to receive what waited.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter state: The new state.
    /// - returns: The new state (and what the change handed over, if anything).
    /// - throws: ``HeraldError``: 404 `deviceNotFound`, 422 `invalidState`, `invalidTransition`.
    @discardableResult
    public func setState(app: String, device: String, _ state: LifecycleState) async throws -> WakeResult {
        struct Body: Encodable { var state: String }
        let result = try await send("PUT", Self.devicePath(app, device) + "/state", body: Body(state: state.rawValue),
                                    as: WakeResult.self)
        remember(result.lastHandOverID, app: app, device: device)
        return result
    }

    /// Reports system events (`POST .../events`): live to an awake device, else queued and coalesced.
    ///
    /// The request carries an `Idempotency-Key` (``idempotencyKey``, else a new UUID), the same
    /// on every retry.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - parameter events: 1 to 1000 events.
    /// - parameter idempotencyKey: The key identifying this call; nil: a new UUID.
    /// - returns: What happened to them.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`, 413 `tooManyEvents`, 422 `unknownEventKind`...
    ///
    /// ```swift
    /// try await client.reportEvents(app: "com.example.alarm", device: "phone-1",
    ///                               [SystemEvent(kind: "batteryLevel", value: 0.42)])
    /// ```
    @discardableResult
    public func reportEvents(app: String, device: String, _ events: [SystemEvent],
                             idempotencyKey: String? = nil) async throws -> EventReport {
        struct Body: Encodable { var events: [SystemEvent] }
        return try await send("POST", Self.devicePath(app, device) + "/events", body: Body(events: events),
                              idempotencyKey: Self.key(idempotencyKey), as: EventReport.self)
    }

    /// The coalesced backlog waiting for a device, without handing it over (`GET .../events/backlog`).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - returns: The coalesced notifications a wake would hand over.
    /// - throws: ``HeraldError``: 404 `deviceNotFound`.
    public func eventBacklog(app: String, device: String) async throws -> [CoalescedEvent] {
        struct Answer: Decodable { var notifications: [CoalescedEvent] }
        return try await get(Self.devicePath(app, device) + "/events/backlog", as: Answer.self).notifications
    }

    // MARK: Hand-over memory

    /// The highest hand-over id this client returned for a device (by a wake, a state change,
    /// an acknowledgement or the event stream), which it acknowledges on the next wake; nil: none.
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    /// - returns: The id, or nil.
    public func lastHandOver(app: String, device: String) -> Int64? {
        handOvers.withLock { $0[DeviceKey(app: app, device: device)] }
    }

    /// Forgets what this client returned for a device, so the next wake acknowledges nothing
    /// (and the device is handed over again whatever it was not acknowledged).
    ///
    /// - parameter app: The bundle id.
    /// - parameter device: The device id.
    public func forgetHandOvers(app: String, device: String) {
        _ = handOvers.withLock { $0.removeValue(forKey: DeviceKey(app: app, device: device)) }
    }

    /// Raises the remembered id of a device to `id`.
    func remember(_ id: Int64?, app: String, device: String) {
        guard let id else { return }
        handOvers.withLock { memory in
            let key = DeviceKey(app: app, device: device)
            memory[key] = max(memory[key] ?? id, id)
        }
    }
}
