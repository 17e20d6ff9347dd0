import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line: `time` (RFC 3339, UTC,
/// milliseconds), `level`, `label`, `message`, `metadata` (the logger's, then the call's) and
/// `source`. Message and metadata values pass through ``LogRedaction`` first.
///
/// ```swift
/// LoggingSystem.bootstrap { label in JSONLogHandler(label: label) }
/// // {"time":"2026-11-24T12:00:00.000Z","level":"info","label":"herald","message":"listening",...}
/// ```
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where each line goes (with its newline); standard error by default.
    public init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = self.metadata
        if let metadata = event.metadata { merged.merge(metadata) { $1 } }
        var object: [String: Any] = [
            "time": Self.timestamp(Date()),
            "level": event.level.rawValue,
            "label": label,
            "message": LogRedaction.scrub(event.message.description),
            "source": event.source,
        ]
        if !merged.isEmpty { object["metadata"] = merged.mapValues(Self.json) }
        if let error = event.error { object["error"] = LogRedaction.scrub("\(error)") }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return
        }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): return LogRedaction.scrub(text)
        case .stringConvertible(let convertible): return LogRedaction.scrub(convertible.description)
        case .array(let values): return values.map(json)
        case .dictionary(let values): return values.mapValues(json)
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }
}
