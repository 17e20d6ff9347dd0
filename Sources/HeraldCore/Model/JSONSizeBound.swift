/// An upper bound on the bytes `JSONEncoder` writes for a value, found without writing them.
///
/// A check that only needs to know a payload fits under a service's limit asks for the bound
/// first and encodes exactly only when the bound is over the limit: on the schedule path most
/// content is far below it. The bound counts every structural byte the encoder may write
/// (quotes, colons, commas, brackets, and the whitespace-free form), each string byte at the
/// most its escaped form can take (`"`, `\` and `/` two bytes, a control character six, a
/// non-ASCII byte two, which covers `\u2028`-style escapes of a three-byte character), and each
/// number at its longest spelling. Keys are strings, and sorting them changes no size.
///
/// ```swift
/// if let bound = JSONSizeBound.bytes(of: payload), bound <= 4096 { return }  // fits
/// let exact = try JSONEncoder().encode(payload).count                          // decide exactly
/// ```
public enum JSONSizeBound {
    /// The bound for `value`, or nil when it cannot be bounded (a non-finite number, which the
    /// encoder refuses, or a value whose encoding throws): encode it exactly to find out.
    public static func bytes(of value: some Encodable) -> Int? {
        let counter = Counter()
        counter.add(2)
        do {
            try value.encode(to: BoundingEncoder(counter: counter))
        } catch {
            return nil
        }
        return counter.unbounded ? nil : counter.bytes
    }

    /// At most how many bytes `text` takes as a JSON string, quotes included.
    static func stringBytes(_ text: String) -> Int {
        var bytes = 2
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C, 0x2F: bytes += 2
            case 0..<0x20: bytes += 6
            case 0x80...: bytes += 2
            default: bytes += 1
            }
        }
        return bytes
    }

    /// The longest an integer is spelled: `-9223372036854775808`.
    static let integerBytes = 20
    /// The longest a finite `Double` is spelled (`-2.2250738585072014e-308` is 24), with room.
    static let floatingBytes = 32

    final class Counter {
        var bytes = 0
        var unbounded = false

        func add(_ count: Int) { bytes += count }

        func floating(_ value: Double) {
            if value.isFinite { bytes += JSONSizeBound.floatingBytes } else { unbounded = true }
        }
    }
}

/// The `Encoder` that adds up ``JSONSizeBound``'s counts: each container adds its brackets, and
/// each element its separator (one comma too many per container: an upper bound may be loose).
private struct BoundingEncoder: Encoder {
    let counter: JSONSizeBound.Counter
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        counter.add(2)
        return KeyedEncodingContainer(KeyedBound<Key>(counter: counter))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        counter.add(2)
        return UnkeyedBound(counter: counter)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleBound(counter: counter) }
}

/// Counts one value of any kind: what every container does for its elements.
private protocol ValueBound {
    var counter: JSONSizeBound.Counter { get }
}

extension ValueBound {
    func countNil() { counter.add(4) }
    func count(_ value: Bool) { counter.add(5) }
    func count(_ value: String) { counter.add(JSONSizeBound.stringBytes(value)) }
    func count(_ value: Double) { counter.floating(value) }
    func countInteger() { counter.add(JSONSizeBound.integerBytes) }
    /// Any other value counts as its `Codable` form, which bounds what `JSONEncoder` writes
    /// for the types it spells its own way (`Date`, `Data`, `URL`, `Decimal`), plus the `{}` of a
    /// value that asks for no container.
    func count<T: Encodable>(_ value: T) throws {
        counter.add(2)
        try value.encode(to: BoundingEncoder(counter: counter))
    }
}

private struct SingleBound: SingleValueEncodingContainer, ValueBound {
    let counter: JSONSizeBound.Counter
    var codingPath: [any CodingKey] { [] }

    func encodeNil() throws { countNil() }
    func encode(_ value: Bool) throws { count(value) }
    func encode(_ value: String) throws { count(value) }
    func encode(_ value: Double) throws { count(value) }
    func encode(_ value: Float) throws { count(Double(value)) }
    func encode(_ value: Int) throws { countInteger() }
    func encode(_ value: Int8) throws { countInteger() }
    func encode(_ value: Int16) throws { countInteger() }
    func encode(_ value: Int32) throws { countInteger() }
    func encode(_ value: Int64) throws { countInteger() }
    func encode(_ value: UInt) throws { countInteger() }
    func encode(_ value: UInt8) throws { countInteger() }
    func encode(_ value: UInt16) throws { countInteger() }
    func encode(_ value: UInt32) throws { countInteger() }
    func encode(_ value: UInt64) throws { countInteger() }
    func encode<T: Encodable>(_ value: T) throws { try count(value) }
}

private struct KeyedBound<Key: CodingKey>: KeyedEncodingContainerProtocol, ValueBound {
    let counter: JSONSizeBound.Counter
    var codingPath: [any CodingKey] { [] }

    /// The key, its colon and the comma after its value.
    private func entry(_ key: Key) { counter.add(JSONSizeBound.stringBytes(key.stringValue) + 2) }

    func encodeNil(forKey key: Key) throws { entry(key); countNil() }
    func encode(_ value: Bool, forKey key: Key) throws { entry(key); count(value) }
    func encode(_ value: String, forKey key: Key) throws { entry(key); count(value) }
    func encode(_ value: Double, forKey key: Key) throws { entry(key); count(value) }
    func encode(_ value: Float, forKey key: Key) throws { entry(key); count(Double(value)) }
    func encode(_ value: Int, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: Int8, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: Int16, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: Int32, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: Int64, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: UInt, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: UInt8, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: UInt16, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: UInt32, forKey key: Key) throws { entry(key); countInteger() }
    func encode(_ value: UInt64, forKey key: Key) throws { entry(key); countInteger() }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { entry(key); try count(value) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                               forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        entry(key)
        return BoundingEncoder(counter: counter).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        entry(key)
        return BoundingEncoder(counter: counter).unkeyedContainer()
    }

    func superEncoder() -> any Encoder {
        counter.add(JSONSizeBound.stringBytes("super") + 2)
        return BoundingEncoder(counter: counter)
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        entry(key)
        return BoundingEncoder(counter: counter)
    }
}

private struct UnkeyedBound: UnkeyedEncodingContainer, ValueBound {
    let counter: JSONSizeBound.Counter
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(counter: JSONSizeBound.Counter) {
        self.counter = counter
    }

    /// The comma after the element.
    private mutating func element() {
        count += 1
        counter.add(1)
    }

    mutating func encodeNil() throws { element(); countNil() }
    mutating func encode(_ value: Bool) throws { element(); count(value) }
    mutating func encode(_ value: String) throws { element(); count(value) }
    mutating func encode(_ value: Double) throws { element(); count(value) }
    mutating func encode(_ value: Float) throws { element(); count(Double(value)) }
    mutating func encode(_ value: Int) throws { element(); countInteger() }
    mutating func encode(_ value: Int8) throws { element(); countInteger() }
    mutating func encode(_ value: Int16) throws { element(); countInteger() }
    mutating func encode(_ value: Int32) throws { element(); countInteger() }
    mutating func encode(_ value: Int64) throws { element(); countInteger() }
    mutating func encode(_ value: UInt) throws { element(); countInteger() }
    mutating func encode(_ value: UInt8) throws { element(); countInteger() }
    mutating func encode(_ value: UInt16) throws { element(); countInteger() }
    mutating func encode(_ value: UInt32) throws { element(); countInteger() }
    mutating func encode(_ value: UInt64) throws { element(); countInteger() }
    mutating func encode<T: Encodable>(_ value: T) throws { element(); try count(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        element()
        return BoundingEncoder(counter: counter).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        element()
        return BoundingEncoder(counter: counter).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        element()
        return BoundingEncoder(counter: counter)
    }
}
