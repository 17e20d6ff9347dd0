extension Duration {
    /// Whole milliseconds, as stores, SQL settings and SSE's `retry:` field take them.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
