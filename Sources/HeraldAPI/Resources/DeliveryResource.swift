import HeraldCore

/// One delivery as the API shows it.
struct DeliveryResource: Encodable {
    var occurrenceId: String
    var notificationId: String
    var scheduledFor: String
    var firedAt: String
    var late: Bool
    var missed: Int
    var channel: String
    var outcome: String
    var apnsStatus: Int?
    var apnsId: String?

    init(_ delivery: Delivery) {
        occurrenceId = delivery.occurrenceID
        notificationId = delivery.notificationID
        scheduledFor = RFC3339.string(from: delivery.scheduledFor)
        firedAt = RFC3339.string(from: delivery.firedAt)
        late = delivery.late
        missed = delivery.missed
        channel = delivery.channel.rawValue
        outcome = delivery.outcome.rawValue
        apnsStatus = delivery.apnsStatus
        apnsId = delivery.apnsID
    }
}
