import Foundation

/// One page of a collection: its items and, when more follow, the cursor of the next page.
///
/// Every collection answers `GET ...?limit=N&cursor=C` with `{"items": [...], "nextCursor": ...}`
/// (`limit` 1 to 1000, else 400 `invalidLimit`; a cursor the list did not give is 400 `invalidCursor`).
/// Each listing of ``HeraldClient`` has a one-page method taking `limit` and `cursor` and an
/// `all...` method returning a ``PageSequence`` that walks every page:
///
/// ```swift
/// var page = try await client.apps(limit: 50)
/// while let cursor = page.nextCursor {
///     page = try await client.apps(limit: 50, cursor: cursor)
/// }
///
/// for try await app in client.allApps() {
///     print(app.id)
/// }
/// ```
public struct Page<Item: Sendable>: Sendable {
    /// The items of this page, in the collection's order.
    public var items: [Item]
    /// The cursor of the next page; nil on the last page.
    public var nextCursor: String?

    /// Creates a page.
    ///
    /// - parameter items: The items of this page.
    /// - parameter nextCursor: The cursor of the next page, nil on the last.
    public init(items: [Item], nextCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

extension Page: Equatable where Item: Equatable {}
extension Page: Hashable where Item: Hashable {}

extension Page: Decodable where Item: Decodable {
    /// The key a collection used before `items` (`notifications`, `deliveries`...), read when
    /// `items` is absent so that a server without paging still answers with one whole page.
    static var legacyKeyOption: CodingUserInfoKey { CodingUserInfoKey(rawValue: "herald.legacyKey")! }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let itemsKey = AnyKey("items")
        if container.contains(itemsKey) {
            items = try container.decode([Item].self, forKey: itemsKey)
        } else if let legacy = decoder.userInfo[Self.legacyKeyOption] as? String, container.contains(AnyKey(legacy)) {
            items = try container.decode([Item].self, forKey: AnyKey(legacy))
        } else {
            throw DecodingError.keyNotFound(itemsKey, .init(codingPath: decoder.codingPath, debugDescription: "no items"))
        }
        nextCursor = try container.decodeIfPresent(String.self, forKey: AnyKey("nextCursor"))
    }
}

/// Any JSON key.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// Every item of a collection, page after page: a page is fetched when the previous one has
/// been read, so a caller that stops early fetches no more.
///
/// ```swift
/// for try await device in client.allDevices(app: "com.example.alarm", state: .suspended) {
///     print(device.id)
/// }
/// ```
public struct PageSequence<Item: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Item

    let pageSize: Int?
    let fetch: @Sendable (_ limit: Int?, _ cursor: String?) async throws -> Page<Item>

    /// A sequence over the pages `fetch` returns, starting with the first (cursor nil).
    ///
    /// - parameter pageSize: The `limit` asked of each page; nil: the server's default.
    /// - parameter fetch: Fetches one page for a limit and cursor.
    public init(pageSize: Int? = nil, fetch: @escaping @Sendable (_ limit: Int?, _ cursor: String?) async throws -> Page<Item>) {
        self.pageSize = pageSize
        self.fetch = fetch
    }

    /// An iterator that fetches the first page when first asked for an item.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pageSize: pageSize, fetch: fetch)
    }

    /// Reads the pages one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let pageSize: Int?
        let fetch: @Sendable (Int?, String?) async throws -> Page<Item>
        var buffer: [Item] = []
        var index = 0
        var cursor: String?
        var finished = false

        init(pageSize: Int?, fetch: @escaping @Sendable (Int?, String?) async throws -> Page<Item>) {
            self.pageSize = pageSize
            self.fetch = fetch
        }

        /// The next item, fetching the next page when this one is read.
        ///
        /// - returns: The item, or nil after the last page.
        /// - throws: ``HeraldError`` when a page cannot be fetched.
        public mutating func next() async throws -> Item? {
            while index == buffer.count {
                guard !finished else { return nil }
                try Task.checkCancellation()
                let page = try await fetch(pageSize, cursor)
                buffer = page.items
                index = 0
                // A cursor that does not move would loop forever: treat it as the end.
                finished = page.nextCursor == nil || page.nextCursor == cursor
                cursor = page.nextCursor
            }
            defer { index += 1 }
            return buffer[index]
        }
    }
}
