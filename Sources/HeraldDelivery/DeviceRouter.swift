import Foundation
import HeraldCore
import HeraldPush
import HeraldStorage

/// Sends each fired local notification the way iOS presents it:
/// - the app is active and connected: quietly, on its live stream;
/// - otherwise, with a usable token: an alert push through the gateway;
/// - with no usable token (none, known dead, or no push settings): held in the device's inbox
///   and delivered when it wakes.
public struct DeviceRouter: DeliveryChannel {
    let streams: LiveStreams
    let push: PushDeliveryChannel
    let ledger: any TokenLedger
    let store: any DeliveryStore

    public init(streams: LiveStreams, push: PushDeliveryChannel, ledger: any TokenLedger, store: any DeliveryStore) {
        self.streams = streams
        self.push = push
        self.ledger = ledger
        self.store = store
    }

    public func deliver(_ batch: [FiredOccurrence]) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome](repeating: .notDelivered, count: batch.count)
        var live: [Int] = []
        var pushIndices: [Int] = []
        var held: [Int] = []
        var apps: [String: App?] = [:]
        for (index, fired) in batch.enumerated() {
            let device = fired.device
            if device.state == .active, await streams.isConnected(appID: device.appID, deviceID: device.id) {
                live.append(index)
                continue
            }
            if apps[device.appID] == nil { apps[device.appID] = try? await store.app(id: device.appID) }
            let pushable = apps[device.appID]??.push != nil && device.token != nil
            if pushable, let token = device.token, await !ledger.isInvalid(appID: device.appID, token: token) {
                pushIndices.append(index)
            } else {
                held.append(index)
            }
        }
        if !live.isEmpty {
            // Stored first, then streamed with its sequence id: it stays until the client
            // acknowledges it, so a stream that drops mid-write loses nothing.
            let sequences = (try? await store.holdInInbox(live.map { Self.inboxItem(batch[$0]) }))
                ?? Array(repeating: nil, count: live.count)
            for (index, sequence) in zip(live, sequences) {
                let device = batch[index].device
                guard sequence != nil else {
                    outcomes[index] = DeliveryOutcome(.inbox, .failed("failed"))
                    continue
                }
                let streamed = await streams.send(.notification(batch[index], sequence: sequence),
                                                  appID: device.appID, deviceID: device.id)
                outcomes[index] = streamed ? DeliveryOutcome(.stream, .delivered) : DeliveryOutcome(.inbox, .held)
            }
        }
        if !pushIndices.isEmpty {
            let results = await push.deliver(pushIndices.map { batch[$0] })
            for (index, result) in zip(pushIndices, results) {
                // A token that turned out dead leaves the inbox as the only way to the device.
                if case .refused(let reason) = result.result,
                   reason == "tokenInvalidated" || APNsReason(rawValue: reason)?.invalidatesToken == true {
                    held.append(index)
                } else {
                    outcomes[index] = result
                }
            }
        }
        guard !held.isEmpty else { return outcomes }
        do {
            try await store.holdInInbox(held.map { Self.inboxItem(batch[$0]) })
            for index in held { outcomes[index] = DeliveryOutcome(.inbox, .held) }
        } catch {
            for index in held { outcomes[index] = DeliveryOutcome(.inbox, .failed("failed")) }
        }
        return outcomes
    }

    static func inboxItem(_ fired: FiredOccurrence) -> InboxItem {
        InboxItem(logID: fired.logID, occurrence: fired.occurrence, content: fired.content, firedAt: fired.firedAt)
    }
}
