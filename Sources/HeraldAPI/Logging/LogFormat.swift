/// How `herald serve` writes its log lines (`logFormat`, `HERALD_LOG_FORMAT`).
public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's plain text lines, for people.
    case text
    /// One JSON object per line (time, level, label, message, metadata, source), for log shippers.
    case json
}
