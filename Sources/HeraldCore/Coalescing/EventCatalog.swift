/// The event kinds one app knows: the built-in kinds plus the custom kinds it declared.
///
/// It validates what devices report, tells the queue which rule each kind folds by, and fixes
/// the delivery order: built-in kinds in `EventKind.allCases` order, then custom kinds by name.
/// A stable order means a waking client can rely on, say, `timeZone` arriving before `settings`.
public struct EventCatalog: Hashable, Sendable {
    /// Bounds kinds, and so a sleeping device's queue (kinds × keys).
    public static let maximumCustomKinds = 64

    /// The catalog of an app that declared no custom kinds.
    public static let builtIn = EventCatalog()

    /// What the catalog knows about one kind.
    struct Entry: Hashable, Sendable {
        var position: Int
        var rule: CoalescingRule
        var keyed: Bool
        var builtIn: EventKind?
        var custom: CustomKind?
    }

    /// The app's custom kinds, sorted by name (their delivery order).
    public let customKinds: [CustomKind]
    /// Every kind name in delivery order.
    public let kindOrder: [String]
    private let entries: [String: Entry]

    /// A catalog with the built-in kinds only.
    public init() {
        self.init(sortedCustomKinds: [])
    }

    /// - Throws: `invalidCustomKind` for a name that is not an identifier, clashes with a
    ///   built-in kind or is declared twice; `tooManyCustomKinds` past `maximumCustomKinds`.
    public init(customKinds: [CustomKind]) throws(HeraldError) {
        guard customKinds.count <= Self.maximumCustomKinds else {
            throw .invalid(.tooManyCustomKinds, "an app may declare at most \(Self.maximumCustomKinds) custom kinds")
        }
        var seen = Set<String>()
        for kind in customKinds {
            try kind.validateName()
            guard seen.insert(kind.name.lowercased()).inserted else {
                throw .invalid(.invalidCustomKind, "custom kind '\(kind.name)' is declared twice")
            }
        }
        self.init(sortedCustomKinds: customKinds.sorted { $0.name < $1.name })
    }

    private init(sortedCustomKinds: [CustomKind]) {
        customKinds = sortedCustomKinds
        var entries: [String: Entry] = [:]
        var order: [String] = []
        for kind in EventKind.allCases {
            entries[kind.rawValue] = Entry(position: order.count, rule: kind.rule, keyed: kind.isKeyed, builtIn: kind)
            order.append(kind.rawValue)
        }
        for kind in sortedCustomKinds {
            entries[kind.name] = Entry(position: order.count, rule: kind.rule.coalescingRule, keyed: kind.keyed, custom: kind)
            order.append(kind.name)
        }
        self.entries = entries
        kindOrder = order
    }

    /// The rule a kind folds by, or nil for a kind this app does not know.
    public func rule(for kind: String) -> CoalescingRule? {
        entries[kind]?.rule
    }

    /// Whether a kind's events carry a key, or nil for a kind this app does not know.
    public func isKeyed(_ kind: String) -> Bool? {
        entries[kind]?.keyed
    }

    /// Checks an event and returns it in canonical form (e.g. a union value as an array, a
    /// signed-out ubiquity identity as `null`), which is what queues store and compare.
    ///
    /// - Throws: `unknownEventKind`, `missingEventKey`, `unexpectedEventKey`, `invalidEventKey`,
    ///   `invalidEventValue` or `unexpectedEventValue`.
    public func validate(_ event: SystemEvent) throws(HeraldError) -> SystemEvent {
        try validated(event).event
    }

    /// `validate`, also returning the kind's entry so the queue does not look it up again.
    func validated(_ event: SystemEvent) throws(HeraldError) -> (event: SystemEvent, entry: Entry) {
        guard let entry = entries[event.kind] else {
            throw .invalid(.unknownEventKind, "'\(event.kind)' is not a built-in kind or a custom kind of this app")
        }
        try EventValidation.checkKey(event.key, kind: event.kind, keyed: entry.keyed)
        var canonical = event
        if let kind = entry.builtIn {
            canonical.value = try kind.canonicalValue(event.value)
        } else if let kind = entry.custom {
            canonical.value = try kind.canonicalValue(event.value)
        }
        return (canonical, entry)
    }

    /// Delivery position of a kind, or nil for a kind this app does not know.
    func position(of kind: String) -> Int? {
        entries[kind]?.position
    }
}
