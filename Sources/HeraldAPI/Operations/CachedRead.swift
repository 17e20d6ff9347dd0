/// A store read shared by everyone who asks within `maximumAge`, and made by one caller at a
/// time: scrapes and open status pages must not each recount the whole store.
actor CachedRead<Value: Sendable> {
    private let read: @Sendable () async throws -> Value
    private let maximumAge: Duration
    private var last: (value: Value, at: ContinuousClock.Instant)?
    private var reading: Task<Value, any Error>?

    init(maximumAge: Duration = .seconds(2), _ read: @escaping @Sendable () async throws -> Value) {
        self.read = read
        self.maximumAge = maximumAge
    }

    var value: Value {
        get async throws {
            if let last, ContinuousClock.now - last.at < maximumAge { return last.value }
            if let reading { return try await reading.value }
            let task = Task { [read] in try await read() }
            reading = task
            defer { reading = nil }
            let value = try await task.value
            last = (value, .now)
            return value
        }
    }
}
