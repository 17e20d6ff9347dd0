import Foundation
import HeraldCore
import HeraldPush
import HeraldStorage

/// Sends each fired local notification the way iOS presents it:
/// - the app is active and connected: quietly, on its live stream;
/// - otherwise, with a usable address on its platform (an APNs token, an FCM token, a Web Push
///   subscription) and settings for that platform's service: a push through the gateway;
/// - with no usable address (none, known dead, or no settings for its platform): held in the device's inbox
///   and delivered when it wakes.
///
/// A store call that fails leaves the occurrences it concerned as a fault (``DeliveryResult/failed(_:)``),
/// never a guess: the dispatcher tries them again, and every step is idempotent.
public struct DeviceRouter: DeliveryChannel {
    let streams: any LiveChannel
    let push: PushDeliveryChannel
    let ledger: any TokenLedger
    let store: any DeliveryStore

    public init(streams: any LiveChannel, push: PushDeliveryChannel, ledger: any TokenLedger, store: any DeliveryStore) {
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
        // Content is decoded here, on the dispatcher's task, not in the timer's claim: once, for
        // where it goes (a Live Activity's token, say) and what it holds.
        let contents = batch.map { try? $0.content() }
        // One call each for the batch, not one per occurrence: which devices stream, which apps
        // push, which tokens are dead. Only active devices are streamed to, so only they are
        // asked about (on several nodes the question is a store read). Live Activity pushes
        // never go to the stream: ActivityKit applies them, not the app.
        let active = batch.indices.filter { index in
            batch[index].device.state == .active && !(contents[index].map(batch[index].device.isActivityPush) ?? false)
        }
        var streaming = [Bool](repeating: false, count: batch.count)
        for (index, connected) in zip(active, await streams.connected(active.map { batch[$0].device })) {
            streaming[index] = connected
        }
        var apps: [String: App?] = [:]
        var unreadApps: Set<String> = []
        var tokensByApp: [String: Set<String>] = [:]
        for fired in batch where apps[fired.device.appID] == nil && !unreadApps.contains(fired.device.appID) {
            do {
                apps[fired.device.appID] = .some(try await store.app(id: fired.device.appID))
            } catch {
                // Not knowing the app's push settings is no reason to pick the inbox: try again.
                unreadApps.insert(fired.device.appID)
            }
        }
        let addresses = batch.indices.map { index in contents[index].flatMap { batch[index].device.pushAddress(for: $0) } }
        for (index, fired) in batch.enumerated() where !streaming[index] && !unreadApps.contains(fired.device.appID) {
            if let address = addresses[index], apps[fired.device.appID]??.pushes(to: fired.device.platform) == true {
                tokensByApp[fired.device.appID, default: []].insert(address)
            }
        }
        var deadByApp: [String: Set<String>] = [:]
        for (app, tokens) in tokensByApp { deadByApp[app] = await ledger.invalid(appID: app, among: tokens) }
        for (index, fired) in batch.enumerated() {
            let device = fired.device
            if unreadApps.contains(device.appID), !streaming[index] {
                outcomes[index] = DeliveryOutcome(.none, .failed(DeliveryResult.storeUnavailable))
            } else if streaming[index] {
                live.append(index)
            } else if apps[device.appID]??.pushes(to: device.platform) == true, let address = addresses[index],
                      deadByApp[device.appID]?.contains(address) != true {
                pushIndices.append(index)
            } else if let unsent = Self.unsentActivityPush(fired, content: contents[index]) {
                outcomes[index] = unsent
            } else {
                held.append(index)
            }
        }
        let liveItems: [InboxItem]
        (live, liveItems) = Self.inboxItems(live, of: batch, contents: contents, outcomes: &outcomes)
        if !live.isEmpty {
            // Stored first, then streamed with its sequence id: it stays until the client
            // acknowledges it, so a stream that drops mid-write loses nothing. Its outcome stays
            // pending until the stream has been told: it may yet end streamed or held.
            let sequences: [Int64?]
            do {
                sequences = try await store.holdInInbox(liveItems, .beforeStreaming)
            } catch {
                for index in live { outcomes[index] = DeliveryOutcome(.inbox, .failed(DeliveryResult.storeUnavailable)) }
                sequences = []
            }
            var stored: [(index: Int, item: InboxItem)] = []
            for ((index, item), sequence) in zip(zip(live, liveItems), sequences) {
                guard let sequence else {
                    // No sequence: the device was deleted meanwhile, or (several nodes) the firing
                    // is no longer this node's, and the outcome written below is refused.
                    outcomes[index] = DeliveryOutcome(.none, .deviceGone)
                    continue
                }
                var item = item
                item.sequence = sequence
                stored.append((index, item))
            }
            // To the stream here, or word to the node holding it; the inbox keeps it regardless.
            let streamed = await streams.deliver(stored.map(\.item))
            for ((index, _), streamed) in zip(stored, streamed) {
                outcomes[index] = streamed ? DeliveryOutcome(.stream, .delivered) : DeliveryOutcome(.inbox, .held)
            }
        }
        if !pushIndices.isEmpty {
            let results = await push.deliver(pushIndices.map { batch[$0] }, contents: pushIndices.map { contents[$0] })
            for (index, result) in zip(pushIndices, results) {
                // A token that turned out dead leaves the inbox as the only way to the device.
                if case .refused(let reason) = result.result, PushOutcome.invalidates(reason: reason) {
                    held.append(index)
                } else {
                    outcomes[index] = result
                }
            }
        }
        let heldItems: [InboxItem]
        (held, heldItems) = Self.inboxItems(held, of: batch, contents: contents, outcomes: &outcomes)
        guard !held.isEmpty else { return outcomes }
        do {
            let sequences = try await store.holdInInbox(heldItems, .final)
            for (index, sequence) in zip(held, sequences) {
                outcomes[index] = sequence == nil ? DeliveryOutcome(.none, .deviceGone) : DeliveryOutcome(.inbox, .held)
            }
        } catch {
            for index in held { outcomes[index] = DeliveryOutcome(.inbox, .failed(DeliveryResult.storeUnavailable)) }
        }
        return outcomes
    }

    /// Firings that end held in the inbox whatever the app's settings and the token ledger say:
    /// to a device that is not active (so never streamed to), is no channel's audience and has
    /// no address on its platform, of content that is not a Live Activity (whose own token, or
    /// refusal, decides). A subset of what ``deliver(_:)`` holds, never more.
    public var inboxOnlyRule: InboxOnlyRule? { Self.inboxOnly }

    static let inboxOnly = InboxOnlyRule { device, storedContent in
        // The stored text is the server's own encoding of validated content: the key is
        // written as is, so its absence rules out a Live Activity without decoding. Text that
        // merely mentions it takes the full path, which is only slower.
        device.state != .active && device.broadcastChannel == nil && device.pushAddress == nil
            && !storedContent.containsBytes(#""liveActivity""#)
    }

    /// The outcome of a Live Activity push with nowhere to go that the inbox cannot stand in for:
    /// an update or end for an activity the device no longer has (forgotten, or never
    /// registered), or a broadcast of an app that cannot send it. nil for everything else.
    static func unsentActivityPush(_ fired: FiredOccurrence, content: NotificationContent?) -> DeliveryOutcome? {
        if fired.device.broadcastChannel != nil { return DeliveryOutcome(.none, .refused(DeliveryResult.noPushSettings)) }
        guard let liveActivity = content?.liveActivity, liveActivity.event != .start,
              fired.device.address(for: liveActivity) == nil else { return nil }
        return DeliveryOutcome(.none, .refused(DeliveryResult.activityGone))
    }

    /// The inbox items for `batch[indices]`, and the indices whose content decoded; the others'
    /// outcomes become a final refusal (a corrupt row: sending it again would not help).
    static func inboxItems(_ indices: [Int], of batch: [FiredOccurrence], contents: [NotificationContent?],
                           outcomes: inout [DeliveryOutcome]) -> (indices: [Int], items: [InboxItem]) {
        var kept: [Int] = []
        var items: [InboxItem] = []
        for index in indices {
            let fired = batch[index]
            guard let content = contents[index] else {
                outcomes[index] = DeliveryOutcome(.none, .refused(DeliveryResult.contentUnreadable))
                continue
            }
            kept.append(index)
            items.append(InboxItem(logID: fired.logID, occurrence: fired.occurrence, content: content,
                                   storedContent: fired.contentJSON, firedAt: fired.firedAt))
        }
        return (kept, items)
    }
}

extension String {
    /// Whether `needle` occurs in this string's UTF-8 bytes: a plain byte search. The claim runs
    /// ``DeviceRouter/inboxOnlyRule`` on every firing, and Foundation's `contains` (a
    /// locale-aware `range(of:)`) cost a quarter of a PostgreSQL claim's own CPU.
    func containsBytes(_ needle: StaticString) -> Bool {
        var text = self
        return text.withUTF8 { haystack in
            needle.withUTF8Buffer { needle in
                guard needle.count > 0 else { return true }
                guard haystack.count >= needle.count else { return false }
                let first = needle[0]
                for start in 0...(haystack.count - needle.count) where haystack[start] == first {
                    var index = 1
                    while index < needle.count, haystack[start + index] == needle[index] { index += 1 }
                    if index == needle.count { return true }
                }
                return false
            }
        }
    }
}
