/// How an inbound webhook's JSON body becomes a push.
///
/// Pointers (RFC 6901) say where values sit in the sender's body and text fields take
/// `{/pointer}` placeholders (see ``TemplateText`` for escaping), so any service that can POST
/// JSON can drive pushes without reshaping its payload. Pointer fields are kept as the text the
/// operator wrote, so a template round-trips unchanged and errors quote it verbatim.
///
/// ```json
/// { "devices": "/user/id", "title": "Order {/order/id}", "body": "{/order/status}",
///   "filter": { "pointer": "/event", "equals": "order.updated" }, "idempotencyKey": "/delivery" }
/// ```
public struct PushTemplate: Codable, Hashable, Sendable {
    /// Pointer to a token string or an array of them. Exactly one of `tokens` and `devices`.
    public var tokens: String?
    /// Pointer to a device id string or an array of them.
    public var devices: String?
    /// `alert` (the default), `background` or `voip`.
    public var type: APNsPushType?
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// A sound file name; placeholders allowed.
    public var sound: String?
    public var badge: Badge?
    public var collapseId: String?
    /// Custom payload keys beside `aps`, each copied (any JSON value) from a pointer.
    public var data: [String: String]?
    /// Push only when the body matches; otherwise ``apply(to:)`` returns nil.
    public var filter: Filter?
    /// Pointer to a string or number that identifies the event, so a resend pushes once.
    public var idempotencyKey: String?
    /// A Live Activity push instead of an alert: its title and body become the activity's alert.
    public var liveActivity: LiveActivityTemplate?
    /// A broadcast channel's name (`{/pointer}` placeholders allowed), instead of tokens or
    /// devices: for a Live Activity update or end.
    public var channel: String?

    /// `badge`: a fixed count, or a pointer to one.
    public enum Badge: Codable, Hashable, Sendable {
        case count(Int)
        case pointer(String)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let count = try? container.decode(Int.self) {
                self = .count(count)
            } else if let pointer = try? container.decode(String.self) {
                self = .pointer(pointer)
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "badge is a number or a \"/pointer\"")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .count(let count): try container.encode(count)
            case .pointer(let pointer): try container.encode(pointer)
            }
        }
    }

    /// `{"pointer": "/status", "equals": <any JSON>}`: JSON equality, so `1` equals `1.0` but not `"1"`.
    public struct Filter: Codable, Hashable, Sendable {
        public var pointer: String
        public var equals: JSONValue

        public init(pointer: String, equals: JSONValue) {
            self.pointer = pointer
            self.equals = equals
        }
    }

    /// The types a webhook may send: the others need payloads (Live Activity content, MDM topics)
    /// that a generic template cannot describe.
    public static let allowedTypes: [APNsPushType] = [.alert, .background, .voip]

    public init(tokens: String? = nil, devices: String? = nil, type: APNsPushType? = nil, title: String? = nil,
                subtitle: String? = nil, body: String? = nil, sound: String? = nil, badge: Badge? = nil,
                collapseId: String? = nil, data: [String: String]? = nil, filter: Filter? = nil,
                idempotencyKey: String? = nil) {
        self.tokens = tokens
        self.devices = devices
        self.type = type
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.badge = badge
        self.collapseId = collapseId
        self.data = data
        self.filter = filter
        self.idempotencyKey = idempotencyKey
    }

    /// The push type, `alert` when unset.
    public var pushType: APNsPushType { type ?? .alert }

    /// Checks the template when it is defined, so a mistake surfaces to the operator rather than
    /// as a failure on each incoming event. Throws `invalidTemplate`.
    public func validate() throws(HeraldError) {
        guard [tokens, devices, channel].compactMap({ $0 }).count == 1 else {
            throw .invalid(.invalidTemplate, "a template targets \"tokens\", \"devices\" or \"channel\": exactly one of them")
        }
        if data?["aps"] != nil {
            throw .invalid(.invalidTemplate, "template data cannot use the key \"aps\"")
        }
        if let liveActivity {
            guard type == nil || type == .liveactivity, sound == nil, badge == nil else {
                throw .invalid(.invalidTemplate, "a liveActivity template takes no type (other than liveactivity), sound or badge")
            }
            if channel != nil, liveActivity.event == .start || liveActivity.activity != nil {
                throw .invalid(.invalidTemplate, "a channel broadcasts updates and ends to every activity on it: no start, no activity")
            }
            _ = try compiled()
            return
        }
        guard channel == nil else { throw .invalid(.invalidTemplate, "a channel template needs liveActivity") }
        guard Self.allowedTypes.contains(pushType) else {
            throw .invalid(.invalidTemplate, "template type must be alert, background or voip, not \(pushType.rawValue)")
        }
        _ = try compiled()
        let alertFields = ["title": title, "subtitle": subtitle, "body": body, "sound": sound]
            .filter { $0.value != nil }.keys.sorted() + (badge == nil ? [] : ["badge"])
        switch pushType {
        case .background:
            // APNs requires a background push's aps to hold only content-available.
            guard alertFields.isEmpty else {
                throw .invalid(.invalidTemplate,
                               "a background template carries only data; remove \(alertFields.joined(separator: ", "))")
            }
        case .alert:
            guard !alertFields.isEmpty else {
                throw .invalid(.invalidTemplate, "an alert template needs a title, subtitle, body, sound or badge")
            }
        default:
            break
        }
        if case .count(let count) = badge, count < 0 {
            throw .invalid(.invalidTemplate, "template badge must be 0 or more, not \(count)")
        }
    }

    /// Maps `document` (the webhook's body) to a push; nil when the filter does not match, which
    /// is not an error: senders post every event and the filter picks the ones worth a push.
    ///
    /// The filter is checked first, so events of other shapes are skipped rather than failing on
    /// fields they never had. Throws `invalidTemplate` for a template that does not validate, and
    /// `templateFailed` quoting the pointer that is missing or holds the wrong type.
    public func apply(to document: JSONValue) throws(HeraldError) -> TemplatedPush? {
        try validate()
        let compiled = try compiled()
        if let filter = compiled.filter, filter.pointer.resolve(in: document) != filter.equals {
            return nil
        }
        var tokens: [String] = []
        var devices: [String] = []
        if let pointer = compiled.tokens { tokens = try Self.strings(at: pointer, field: "tokens", in: document) }
        if let pointer = compiled.devices { devices = try Self.strings(at: pointer, field: "devices", in: document) }

        var aps = APS()
        if pushType == .background {
            aps.contentAvailable = 1
        } else {
            let title = try compiled.title?.render(with: document, field: "title")
            let subtitle = try compiled.subtitle?.render(with: document, field: "subtitle")
            let body = try compiled.body?.render(with: document, field: "body")
            if title != nil || subtitle != nil || body != nil {
                aps.alert = .content(APS.AlertContent(title: title, subtitle: subtitle, body: body))
            }
            if let sound = try compiled.sound?.render(with: document, field: "sound") { aps.sound = .named(sound) }
            switch compiled.badge {
            case .count(let count): aps.badge = count
            case .pointer(let pointer): aps.badge = try Self.badge(at: pointer, in: document)
            case nil: break
            }
        }

        var data: [String: JSONValue] = [:]
        for (key, pointer) in compiled.data {
            guard let value = pointer.resolve(in: document) else { throw TemplateFailure.missing(pointer, field: "data.\(key)") }
            data[key] = value
        }

        var idempotencyKey: String?
        if let pointer = compiled.idempotencyKey {
            guard let value = pointer.resolve(in: document) else {
                throw TemplateFailure.missing(pointer, field: "idempotencyKey")
            }
            // Only values that tell events apart: null, booleans, containers and "" would key many
            // different events alike and silently drop all but the first.
            switch value {
            case .string(let text) where !text.isEmpty: idempotencyKey = text
            case .number: idempotencyKey = value.scalarText
            default:
                throw TemplateFailure.wrongType(pointer, field: "idempotencyKey", expected: "a non-empty string or a number", found: value)
            }
        }

        var push = TemplatedPush(tokens: tokens, devices: devices, type: pushType, aps: aps, data: data,
                                 collapseID: try compiled.collapseId?.render(with: document, field: "collapseId"),
                                 idempotencyKey: idempotencyKey)
        if let liveActivity {
            let alert = aps.alert.flatMap { alert -> NotificationContent.Alert? in
                guard case .content(let content) = alert, let body = content.body else { return nil }
                return .init(title: content.title, subtitle: content.subtitle, body: body)
            }
            push.type = .liveactivity
            push.aps = APS()
            push.liveActivity = try liveActivity.render(with: document, alert: alert)
            push.channel = try channel.map { text throws(HeraldError) in
                try TemplateText(text, field: "channel").render(with: document, field: "channel")
            }
        }
        return push
    }

    // MARK: - Parsing

    /// The template with every pointer and text parsed.
    private struct Compiled {
        var tokens: JSONPointer?
        var devices: JSONPointer?
        var title, subtitle, body, sound, collapseId: TemplateText?
        var badge: CompiledBadge?
        var data: [(key: String, pointer: JSONPointer)] = []
        var filter: (pointer: JSONPointer, equals: JSONValue)?
        var idempotencyKey: JSONPointer?
    }

    private enum CompiledBadge {
        case count(Int)
        case pointer(JSONPointer)
    }

    private func compiled() throws(HeraldError) -> Compiled {
        var result = Compiled()
        result.tokens = try tokens.map { text throws(HeraldError) in try Self.pointer(text, field: "tokens") }
        result.devices = try devices.map { text throws(HeraldError) in try Self.pointer(text, field: "devices") }
        result.title = try title.map { text throws(HeraldError) in try TemplateText(text, field: "title") }
        result.subtitle = try subtitle.map { text throws(HeraldError) in try TemplateText(text, field: "subtitle") }
        result.body = try body.map { text throws(HeraldError) in try TemplateText(text, field: "body") }
        result.sound = try sound.map { text throws(HeraldError) in try TemplateText(text, field: "sound") }
        result.collapseId = try collapseId.map { text throws(HeraldError) in try TemplateText(text, field: "collapseId") }
        switch badge {
        case .count(let count): result.badge = .count(count)
        case .pointer(let text): result.badge = .pointer(try Self.pointer(text, field: "badge"))
        case nil: break
        }
        // Sorted so errors name the same key each time, whatever the dictionary's order.
        for (key, text) in (data ?? [:]).sorted(by: { $0.key < $1.key }) {
            result.data.append((key, try Self.pointer(text, field: "data.\(key)")))
        }
        if let filter {
            result.filter = (try Self.pointer(filter.pointer, field: "filter.pointer"), filter.equals)
        }
        result.idempotencyKey = try idempotencyKey.map { text throws(HeraldError) in try Self.pointer(text, field: "idempotencyKey") }
        return result
    }

    private static func pointer(_ text: String, field: String) throws(HeraldError) -> JSONPointer {
        do {
            return try JSONPointer(text)
        } catch {
            throw .invalid(.invalidTemplate, "template field \(field): \(error.message)")
        }
    }

    /// A string or an array of strings; an empty array is allowed and means nobody to push to.
    private static func strings(at pointer: JSONPointer, field: String, in document: JSONValue) throws(HeraldError) -> [String] {
        guard let value = pointer.resolve(in: document) else { throw TemplateFailure.missing(pointer, field: field) }
        switch value {
        case .string(let text):
            return [text]
        case .array(let elements):
            var texts: [String] = []
            for element in elements {
                guard case .string(let text) = element else {
                    throw .invalid(.templateFailed,
                                   "template field \(field): \"\(pointer)\" must hold only strings, not \(element.typeName)")
                }
                texts.append(text)
            }
            return texts
        default:
            throw TemplateFailure.wrongType(pointer, field: field, expected: "a string or an array of strings", found: value)
        }
    }

    private static func badge(at pointer: JSONPointer, in document: JSONValue) throws(HeraldError) -> Int {
        guard let value = pointer.resolve(in: document) else { throw TemplateFailure.missing(pointer, field: "badge") }
        guard case .number(let number) = value, number >= 0, number.rounded() == number, number <= Double(Int32.max) else {
            throw TemplateFailure.wrongType(pointer, field: "badge", expected: "a whole number 0 or more", found: value)
        }
        return Int(number)
    }
}

/// What a template made of one webhook body: recipients and the push to send them.
///
/// Still unvalidated against APNs (collapse id length, payload size): the caller builds an
/// ``APNsPush`` per recipient, which refuses those with its own reasons.
public struct TemplatedPush: Hashable, Sendable {
    public var tokens: [String]
    public var devices: [String]
    public var type: APNsPushType
    public var aps: APS
    /// Custom keys beside `aps`.
    public var data: [String: JSONValue]
    public var collapseID: String?
    public var idempotencyKey: String?
    /// A Live Activity push (``type`` is then `liveactivity`, ``aps`` unused).
    public var liveActivity: LiveActivity?
    /// A broadcast channel's name, instead of tokens or devices.
    public var channel: String?

    public init(tokens: [String] = [], devices: [String] = [], type: APNsPushType, aps: APS,
                data: [String: JSONValue] = [:], collapseID: String? = nil, idempotencyKey: String? = nil) {
        self.tokens = tokens
        self.devices = devices
        self.type = type
        self.aps = aps
        self.data = data
        self.collapseID = collapseID
        self.idempotencyKey = idempotencyKey
    }
}
