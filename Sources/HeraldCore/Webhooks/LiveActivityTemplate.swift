/// The `liveActivity` part of a hook's template: how an inbound event becomes a Live Activity
/// push (a score changed: update the match's activity, or broadcast on its channel).
///
/// ```json
/// { "channel": "match-{/match/id}",
///   "liveActivity": { "event": "update", "contentState": "/score" } }
/// ```
public struct LiveActivityTemplate: Codable, Hashable, Sendable {
    public var event: LiveActivityEvent
    /// The activity an update or end goes to; `{/pointer}` placeholders allowed.
    public var activity: String?
    /// The ActivityAttributes type a start creates.
    public var attributesType: String?
    /// Pointer to the attributes object of a start.
    public var attributes: String?
    /// Pointer to the content state object.
    public var contentState: String?
    public var relevanceScore: Double?

    public init(event: LiveActivityEvent, activity: String? = nil, attributesType: String? = nil, attributes: String? = nil,
                contentState: String? = nil, relevanceScore: Double? = nil) {
        self.event = event
        self.activity = activity
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.relevanceScore = relevanceScore
    }

    /// The Live Activity for `document`, with `alert` from the template's title and body.
    ///
    /// - Throws: `templateFailed` naming a missing pointer, `invalidTemplate` for a bad one.
    func render(with document: JSONValue, alert: NotificationContent.Alert?) throws(HeraldError) -> LiveActivity {
        func object(_ text: String?, field: String) throws(HeraldError) -> JSONValue? {
            guard let text else { return nil }
            let pointer: JSONPointer
            do {
                pointer = try JSONPointer(text)
            } catch {
                throw .invalid(.invalidTemplate, "template field liveActivity.\(field): \(error.message)")
            }
            guard let value = pointer.resolve(in: document) else {
                throw .invalid(.templateFailed, "template field liveActivity.\(field): \"\(text)\" is not in the body")
            }
            return value
        }
        return LiveActivity(event: event,
                            activity: try activity.map { text throws(HeraldError) in
                                try TemplateText(text, field: "liveActivity.activity").render(with: document, field: "liveActivity.activity")
                            },
                            attributesType: attributesType, attributes: try object(attributes, field: "attributes"),
                            contentState: try object(contentState, field: "contentState"), alert: alert,
                            relevanceScore: relevanceScore)
    }
}
