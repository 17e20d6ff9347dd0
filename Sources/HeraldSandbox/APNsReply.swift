import Foundation
import HeraldCore
import HeraldHTTP2

/// The responses APNs sends, byte for byte in shape: a bodiless 200 with `apns-id` (and, in the
/// development environment, `apns-unique-id`), or a JSON `{"reason": ...}` with the reason's
/// status, plus `timestamp` in milliseconds on a 410.
enum APNsReply {
    static func success(apnsId: String, uniqueId: String) -> HTTP2Response {
        HTTP2Response(status: 200, headers: [("apns-id", apnsId), ("apns-unique-id", uniqueId)])
    }

    /// - Parameter apnsId: echoed as APNs does, so a client can match the refusal to its request.
    static func failure(_ reason: APNsReason, apnsId: String, now: Date) -> HTTP2Response {
        failure(reason, identifiedBy: ("apns-id", apnsId), now: now)
    }

    /// A refusal that names its request with `header`: `apns-id` for pushes, `apns-request-id`
    /// for the channel management API.
    static func failure(_ reason: APNsReason, identifiedBy header: HTTP2Header, now: Date) -> HTTP2Response {
        var body = #"{"reason":"\#(reason.rawValue)""#
        if reason.status == 410 {
            body += #","timestamp":\#(Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))"#
        }
        body += "}"
        return HTTP2Response(status: reason.status,
                             headers: [header, ("content-type", "application/json; charset=utf-8")],
                             body: Array(body.utf8))
    }

    /// The request's `apns-id` when it is a UUID, or a fresh lowercase one.
    static func responseID(for request: HTTP2ServerRequest) -> String {
        if let sent = request.header("apns-id"), UUID(uuidString: sent) != nil { return sent }
        return newID()
    }

    static func newID() -> String {
        UUID().uuidString.lowercased()
    }
}
