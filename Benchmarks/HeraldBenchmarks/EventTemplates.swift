import Foundation
import HeraldCore

/// The system events the coalescer benchmarks send: every built-in kind, in four variants each,
/// the way a device reports them. Keyed kinds use a few keys (two accessories, two screens, four
/// settings), so a device's queue holds every kind with some keys, as a real device's would.
/// Accessories and screens connect in variants 0–1 and disconnect in 2–3, so a full cycle
/// cancels out, which the coalescer must notice.
enum EventTemplates {
    static let variants = 4
    static let kinds = EventKind.allCases

    /// Variant-major: index `v × kinds + k` is kind `k` in variant `v`; consecutive indices
    /// cover every kind before repeating one.
    static let all: [SystemEvent] = (0..<variants).flatMap { variant in kinds.map { event($0, variant: variant) } }

    /// The event at position `index` of the endless cycle.
    static func cycle(_ index: Int) -> SystemEvent { all[index % all.count] }

    static func event(_ kind: EventKind, variant v: Int) -> SystemEvent {
        switch kind {
        case .accessory: return SystemEvent(kind: kind.rawValue, key: "acc-\(v % 2)", value: .string(v < 2 ? "connected" : "disconnected"))
        case .orientation: return value(kind, .string(["portrait", "landscapeLeft", "portraitUpsideDown", "landscapeRight"][v]))
        case .significantTimeChange: return SystemEvent(kind: kind.rawValue)
        case .timeZone: return value(kind, .string(["Europe/Paris", "America/New_York", "Asia/Tokyo", "Europe/London"][v]))
        case .batteryLevel: return value(kind, .number([0.25, 0.5, 0.75, 1.0][v]))
        case .batteryState: return value(kind, .string(["unplugged", "charging", "full", "unknown"][v]))
        case .proximity: return value(kind, .bool(v % 2 == 0))
        case .protectedData: return value(kind, .string(["available", "unavailable"][v % 2]))
        case .screen: return SystemEvent(kind: kind.rawValue, key: "screen-\(v % 2)", value: .string(v < 2 ? "connected" : "disconnected"))
        case .screenMode: return SystemEvent(kind: kind.rawValue, key: "screen-1", value: .string("mode-\(v)"))
        case .settings: return SystemEvent(kind: kind.rawValue, key: "setting-\(v)", value: .number(Double(v)))
        case .locale: return value(kind, .string(["en_US", "fr_FR", "de_DE", "ja_JP"][v]))
        case .ubiquityIdentity: return value(kind, .string("icloud-\(v)"))
        }
    }

    private static func value(_ kind: EventKind, _ value: JSONValue) -> SystemEvent {
        SystemEvent(kind: kind.rawValue, value: value)
    }

    /// One event of every kind that leaves every kind pending on a device that has not been
    /// woken since: value kinds were never delivered, and the connection kinds use keys no
    /// other event touches.
    static let everyKindPending: [SystemEvent] = kinds.map { kind in
        switch kind {
        case .accessory: return SystemEvent(kind: kind.rawValue, key: "acc-wake", value: .string("connected"))
        case .screen: return SystemEvent(kind: kind.rawValue, key: "screen-wake", value: .string("connected"))
        default: return event(kind, variant: 0)
        }
    }

    /// `{"events":[…]}`, the body of `POST …/events`.
    static func body(_ events: [SystemEvent]) -> String {
        struct Body: Encodable { var events: [SystemEvent] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(Body(events: events))) ?? Data(), as: UTF8.self)
    }
}
