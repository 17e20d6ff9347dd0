import HeraldStorage

/// The store's gauges, read at most once per `maximumAge` however many scrapes and open status
/// pages ask, and by one read at a time: each read counts every device's coalesced backlog.
actor StoreGaugeCache {
    private let store: any StatusStore
    private let maximumAge: Duration
    private var last: (gauges: StoreGauges, at: ContinuousClock.Instant)?
    private var reading: Task<StoreGauges, any Error>?

    init(store: any StatusStore, maximumAge: Duration = .seconds(2)) {
        self.store = store
        self.maximumAge = maximumAge
    }

    func gauges() async throws -> StoreGauges {
        if let last, ContinuousClock.now - last.at < maximumAge { return last.gauges }
        if let reading { return try await reading.value }
        let store = self.store
        let read = Task { try await store.storeGauges() }
        reading = read
        defer { reading = nil }
        let gauges = try await read.value
        last = (gauges, .now)
        return gauges
    }
}
