import Foundation
import HeraldCoalescer
import HeraldCore
import HeraldStorage

/// A coalesced system notification: the net change of one kind (and key) since the client last
/// received it, and how many raw events it stands for.
struct CoalescedResource: Encodable {
    var kind: String
    var key: String?
    var value: JSONValue?
    var count: Int

    init(_ notification: CoalescedNotification) {
        kind = notification.kind
        key = notification.key
        value = notification.value
        count = notification.count
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(key, forKey: .key)
        try container.encode(value ?? .null, forKey: .value)
        try container.encode(count, forKey: .count)
    }

    enum CodingKeys: String, CodingKey { case kind, key, value, count }
}

/// A local notification as a device receives it: from its inbox, or on its live stream.
struct PresentedNotificationResource: Encodable {
    var occurrenceId: String
    var notificationId: String
    var scheduledFor: String
    var firedAt: String
    var late: Bool
    var missed: Int
    /// The alert, or (for a Live Activity push the device could not be sent) the activity change
    /// for the app to apply itself.
    var alert: AlertBody?
    var liveActivity: LiveActivityBody?
    var sound: String?
    var badge: Int?
    var category: String?
    var threadId: String?
    var userInfo: [String: JSONValue]?
    /// For inbox items: the sequence id to acknowledge (`POST .../inbox/ack {"upTo": seq}`, the
    /// wake's `ack`, or SSE's `Last-Event-ID`); until then the item is handed over again.
    var seq: Int64?

    init(_ item: InboxItem) {
        let occurrence = item.occurrence, content = item.content
        seq = item.sequence
        occurrenceId = occurrence.id
        notificationId = occurrence.notificationID
        scheduledFor = RFC3339.string(from: occurrence.scheduledFor)
        firedAt = RFC3339.string(from: item.firedAt)
        late = occurrence.late
        missed = occurrence.missed
        alert = content.alert.map { AlertBody(title: $0.title, subtitle: $0.subtitle, body: $0.body) }
        liveActivity = content.liveActivity.map(LiveActivityBody.init)
        sound = content.sound
        badge = content.badge
        category = content.category
        threadId = content.threadId
        userInfo = content.userInfo
    }
}

/// The answer to a state change or a wake: the new state, then what was waiting, in delivery
/// order (the coalesced system notifications first, in kind order, then the inbox, oldest first).
struct WakeResource: Encodable {
    var state: String
    var woke: Bool
    var notifications: [CoalescedResource]
    /// Acknowledges `notifications` (absent when there are none): they are handed over again,
    /// merged with what came since, until an ack reaches this id.
    var backlogSeq: Int64?
    var inbox: [PresentedNotificationResource]

    init(_ result: WakeResult) {
        state = result.device.state.rawValue
        woke = result.woke
        notifications = result.notifications.map(CoalescedResource.init)
        backlogSeq = result.backlogSequence
        inbox = result.inbox.map(PresentedNotificationResource.init)
    }
}

/// `POST .../inbox/ack`'s answer: what the acknowledgement removed.
struct AcknowledgementResource: Encodable {
    /// Inbox items removed.
    var acknowledged: Int
    /// Whether the backlog hand-over was acknowledged too.
    var backlog: Bool

    init(_ acknowledgement: Acknowledgement) {
        acknowledged = acknowledgement.inboxItems
        backlog = acknowledgement.backlog
    }
}
