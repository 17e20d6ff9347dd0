import Foundation
import HeraldCore
import HeraldCrypto
import Hummingbird

/// A listing's `?limit=&cursor=`, and its answer `{"items": [...], "nextCursor": ...}`.
///
/// The cursor is opaque to clients: the store's key of the last item shown, base64url-encoded.
/// A page starts after that key, so items created or deleted between pages shift nothing.
struct Pagination {
    static let maximumLimit = 1000

    var limit: Int
    /// The store key to continue after; nil for the first page.
    var after: String?

    /// Reads `limit` (1 to 1000, else 400 `invalidLimit`) and `cursor` (one a listing gave,
    /// else 400 `invalidCursor`).
    init(_ request: Request, defaultLimit: Int = 100) throws {
        let query = request.uri.queryParameters
        limit = defaultLimit
        if let text = query.get("limit") {
            guard let number = Int(text), (1...Self.maximumLimit).contains(number) else {
                throw HeraldError.badRequest(.invalidLimit, "limit must be an integer from 1 to \(Self.maximumLimit)")
            }
            limit = number
        }
        if let cursor = query.get("cursor") {
            guard let key = Self.key(fromCursor: cursor) else {
                throw HeraldError.badRequest(.invalidCursor, "cursor is not one this list gave")
            }
            after = key
        }
    }

    /// A page of a list held in memory (one device's notifications, an app's channels), whose
    /// items sort by `key` in ascending order.
    func page<Item: Sendable>(of items: [Item], key: (Item) -> String) -> ListPage<Item> {
        let sorted = items.map { (key: key($0), item: $0) }.sorted { $0.key < $1.key }
        let rest = after.map { after in sorted.filter { $0.key > after } } ?? sorted
        return ListPage(fetched: Array(rest.prefix(limit + 1)), limit: limit, key: \.key).map(\.item)
    }

    static func cursor(forKey key: String) -> String {
        Base64URL.encode(key.utf8)
    }

    static func key(fromCursor cursor: String) -> String? {
        guard !cursor.isEmpty, let bytes = Base64URL.decode(cursor) else { return nil }
        return String(bytes: bytes, encoding: .utf8)
    }
}

extension ListPage {
    /// The same page with each item transformed.
    func map<Other: Sendable>(_ transform: (Item) throws -> Other) rethrows -> ListPage<Other> {
        ListPage<Other>(items: try items.map(transform), nextKey: nextKey)
    }
}

/// The JSON of one page: `items` and `nextCursor` (null on the last page). Lists that answered
/// under their own key before pagination (`notifications`, `deliveries`, ...) repeat the page
/// there, so clients written against that key keep working.
struct ListingBody<Item: Encodable & Sendable>: Encodable {
    var items: [Item]
    var nextCursor: String?
    var legacyKey: String?

    init(_ page: ListPage<Item>, legacyKey: String? = nil) {
        items = page.items
        nextCursor = page.nextKey.map(Pagination.cursor(forKey:))
        self.legacyKey = legacyKey
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(items, forKey: AnyCodingKey("items"))
        try container.encode(nextCursor, forKey: AnyCodingKey("nextCursor"))
        if let legacyKey { try container.encode(items, forKey: AnyCodingKey(legacyKey)) }
    }
}

extension Response {
    /// A listing's answer, 200.
    static func listing<Item: Encodable & Sendable>(_ page: ListPage<Item>, legacyKey: String? = nil) throws -> Response {
        try json(ListingBody(page, legacyKey: legacyKey))
    }
}
