import Foundation
import HeraldCore
import HeraldStorage

/// The coalescer's use cases, written once for every store: a device's lifecycle moves and
/// wakes, the system events it is sent, and its acknowledgements. Each reads the device's
/// events through ``CoalescerStore``, decides with HeraldCore's rules (``LifecycleState``,
/// ``AcknowledgedBacklog``, ``LiveHandOvers``), and has the store write that decision in the
/// same transaction.
///
/// ```swift
/// let coalescer = Coalescer(store: store, streams: streams)
/// _ = try await coalescer.report([SystemEvent(kind: "batteryLevel", value: 0.4)], app: app, deviceID: "d1")
/// let wake = try await coalescer.move(app: app, deviceID: "d1", to: .background, drain: true)
/// _ = try await coalescer.acknowledge(appID: app.id, deviceID: "d1", upTo: wake.backlogSequence ?? 0)
/// ```
public struct Coalescer: Sendable {
    let store: any CoalescerStore
    /// The devices' live streams: reported events go live to a device that streams.
    public let streams: LiveStreams

    public init(store: any CoalescerStore, streams: LiveStreams) {
        self.store = store
        self.streams = streams
    }

    /// Moves a device to `state`, as iOS moves an app. A move from asleep to awake, or any move
    /// with `drain`, wakes it: the coalesced backlog is handed over under a new sequence id and
    /// the inbox read back, both in the same transaction; both stay until acknowledged.
    ///
    /// - Parameters:
    ///   - acknowledging: what the device received up to this sequence id, acknowledged first.
    /// - Throws: `deviceNotFound`; `invalidTransition` for a move iOS cannot make (nothing is
    ///   acknowledged then).
    public func move(app: App, deviceID: String, to state: LifecycleState, drain: Bool,
                     acknowledging upTo: Int64? = nil) async throws -> WakeResult {
        let catalog = try EventCatalog(customKinds: app.customKinds)
        let written = try await store.changeDeviceEvents(appID: app.id, deviceID: deviceID) { update in
            if let upTo { Self.acknowledge(&update, upTo: upTo) }
            let current = update.events.device.state
            guard current.canMove(to: state) else { throw HeraldError.invalidTransition(from: current, to: state) }
            update.events.device.state = state
            guard current.wakes(movingTo: state, drain: drain) else {
                return (woke: false, batch: [CoalescedNotification](), sequence: Int64?.none)
            }
            update.readInbox()
            var backlog = update.events.backlog
            let handed = backlog.handOver(catalog: catalog, sequence: update.drawHandOverID())
            update.events.backlog = backlog
            return (woke: true, batch: handed.batch, sequence: handed.sequence)
        }
        return WakeResult(device: written.events.device, woke: written.outcome.woke, notifications: written.outcome.batch,
                          backlogSequence: written.outcome.sequence, inbox: written.inbox)
    }

    /// Acknowledges what the device received up to and including sequence id `upTo`: its inbox
    /// items, its live hand-overs, and the backlog hand-over if its id is in range.
    ///
    /// - Throws: `deviceNotFound`.
    public func acknowledge(appID: String, deviceID: String, upTo: Int64) async throws -> Acknowledgement {
        let written = try await store.changeDeviceEvents(appID: appID, deviceID: deviceID) { update in
            Self.acknowledge(&update, upTo: upTo)
        }
        return Acknowledgement(inboxItems: written.inboxAcknowledged, backlog: written.outcome)
    }

    /// Records reported events, all validated first (a refused one changes nothing). For an awake
    /// device with a live stream they are handed over live under a new sequence id, kept until
    /// acknowledged, and word goes to its streams, which read them from the store; otherwise
    /// they are queued and coalesced for its next wake.
    ///
    /// - Throws: the first refused event's error, its message prefixed with its index
    ///   (`events[2]: …`); `deviceNotFound`.
    public func report(_ events: [SystemEvent], app: App, deviceID: String) async throws -> EventIngestion {
        let catalog = try EventCatalog(customKinds: app.customKinds)
        var validated: [SystemEvent] = []
        for (index, event) in events.enumerated() {
            do {
                validated.append(try catalog.validate(event))
            } catch {
                throw HeraldError(error.kind, reason: error.reason, message: "events[\(index)]: \(error.message)")
            }
        }
        let connected = await streams.isConnected(appID: app.id, deviceID: deviceID)
        let written = try await store.changeDeviceEvents(appID: app.id, deviceID: deviceID) { [validated] update in
            guard update.events.device.state.isAwake && connected else {
                for event in validated { try update.events.backlog.ingest(event, catalog: catalog) }
                return (liveSequence: Int64?.none, queued: validated.count, backlog: update.events.backlog.pendingCount)
            }
            let sequence = update.drawHandOverID()
            update.events.backlog.handOverLive(validated, catalog: catalog, sequence: sequence)
            update.events.live.append(validated, sequence: sequence)
            // What waits besides them: they count as pending only once a wake hands them over again.
            return (liveSequence: sequence, queued: 0, backlog: update.events.backlog.queue.pendingCount)
        }
        let outcome = written.outcome
        // Word that goes astray loses nothing: a stream reads them at its next word, and a wake
        // hands them over again.
        if let sequence = outcome.liveSequence {
            await streams.announce(sequence: sequence, appID: app.id, deviceID: deviceID)
        }
        return EventIngestion(device: written.events.device, accepted: validated,
                              live: outcome.liveSequence == nil ? [] : validated, liveSequence: outcome.liveSequence,
                              queued: outcome.queued, backlog: outcome.backlog)
    }

    /// The backlog a wake would hand over now, handing nothing over.
    ///
    /// - Throws: `deviceNotFound`.
    public func backlog(app: App, deviceID: String) async throws -> [CoalescedNotification] {
        let catalog = try EventCatalog(customKinds: app.customKinds)
        return try await store.deviceEvents(appID: app.id, deviceID: deviceID).backlog.preview(catalog: catalog)
    }

    /// What the device was handed above a stream's cursor `after` and has not acknowledged:
    /// inbox items and live hand-overs, from one snapshot.
    public func handedOver(appID: String, deviceID: String, after: Int64) async throws -> HandedOver {
        let (inbox, live) = try await store.handedOver(appID: appID, deviceID: deviceID, after: after)
        let above = live.after(after)
        return HandedOver(inbox: inbox, live: above.batches, missedLive: above.missed)
    }

    /// Throttles content-available wake pushes: true, and recorded, when fewer than `perHour`
    /// went out to the device in the hour before `now`.
    ///
    /// - Throws: `deviceNotFound`.
    public func recordWakePush(appID: String, deviceID: String, now: Date, perHour: Int) async throws -> Bool {
        try await store.changeDeviceEvents(appID: appID, deviceID: deviceID) { update in
            let hourAgo = now.millisecondsSince1970 - 3_600_000
            let sent = update.events.wakePushes.filter { $0 > hourAgo }
            guard sent.count < perHour else { return false }
            update.events.wakePushes = sent + [now.millisecondsSince1970]
            return true
        }.outcome
    }

    /// Acknowledges everything handed over up to `upTo`. Returns whether the backlog's
    /// hand-over was among it.
    @discardableResult
    private static func acknowledge(_ update: inout DeviceEventsUpdate, upTo: Int64) -> Bool {
        update.acknowledgeInbox(upTo: upTo)
        update.events.live.acknowledge(upTo: upTo)
        return update.events.backlog.acknowledge(upTo: upTo)
    }
}
