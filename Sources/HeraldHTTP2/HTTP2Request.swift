/// A header as it appears on the wire; an array of pairs keeps order and allows repeats.
public typealias HTTP2Header = (name: String, value: String)

/// A client request. Pseudo-headers are separate fields so callers cannot misorder them.
public struct HTTP2Request: Sendable {
    public var method: String
    public var path: String
    public var authority: String
    public var scheme: String
    public var headers: [HTTP2Header]
    /// Headers shared with many requests, sent from a block built once (after the pseudo-headers,
    /// before `headers`).
    public var sharedHeaders: HTTP2HeaderBlock?
    /// Headers whose values differ on every request (an `apns-id`): sent never-indexed, so they
    /// do not push reusable entries out of the peer's HPACK table.
    public var uniqueHeaders: [HTTP2Header]
    public var body: [UInt8]

    public init(method: String = "GET", path: String, authority: String, scheme: String = "https",
                headers: [HTTP2Header] = [], sharedHeaders: HTTP2HeaderBlock? = nil, uniqueHeaders: [HTTP2Header] = [],
                body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.authority = authority
        self.scheme = scheme
        self.headers = headers
        self.sharedHeaders = sharedHeaders
        self.uniqueHeaders = uniqueHeaders
        self.body = body
    }
}

/// A complete response: the client only resolves a request once the whole body has arrived.
public struct HTTP2Response: Sendable {
    public var status: Int
    public var headers: [HTTP2Header]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTP2Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, compared case-insensitively as HTTP requires. HTTP/2 sends
    /// names in lowercase, so an exact match is tried first, without copying any name.
    public func header(_ name: String) -> String? {
        let lowered = name.utf8.contains { $0 >= 65 && $0 <= 90 } ? name.lowercased() : name
        return (headers.first { $0.name == lowered } ?? headers.first { $0.name.lowercased() == lowered })?.value
    }
}

/// A request as the server received it, with the stream it arrived on.
public struct HTTP2ServerRequest: Sendable {
    public var streamID: Int32
    public var method: String
    public var path: String
    public var authority: String
    public var scheme: String
    public var headers: [HTTP2Header]
    public var body: [UInt8]

    /// The first value of a header, compared case-insensitively as HTTP requires.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}
