import HeraldCoalescer
import HeraldStorage

extension CoalescerStore {
    /// The coalescer's use cases on this store, with streams of their own (none connected): what
    /// tests of a store call its wakes, reports and acknowledgements through.
    public var coalescer: Coalescer { Coalescer(store: self, streams: LiveStreams()) }
}
