/// Which push service reaches an installation: APNs for iOS, FCM for Android, Web Push for a
/// browser. Everything else (schedule, limit, inbox, stream) is the same for all three.
public enum Platform: String, Codable, Sendable, CaseIterable {
    case ios, android, web
}
