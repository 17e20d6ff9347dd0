import CNGHTTP2

/// Headers that many requests share (an APNs app's `authorization` and `apns-topic`), laid out
/// once in memory that nghttp2 reads in place (NO_COPY), instead of being rebuilt and copied for
/// every request.
///
/// Immutable after init, hence `@unchecked Sendable`. A channel keeps each block it submitted
/// alive until nghttp2 has encoded every HEADERS frame that points into it.
///
/// ```swift
/// let shared = HTTP2HeaderBlock([("authorization", "bearer \(jwt)"), ("apns-topic", topic)])
/// var request = HTTP2Request(method: "POST", path: path, authority: host, body: payload)
/// request.sharedHeaders = shared
/// ```
public final class HTTP2HeaderBlock: @unchecked Sendable {
    public let headers: [HTTP2Header]
    private let storage: UnsafeMutableRawBufferPointer
    let entries: UnsafeMutableBufferPointer<nghttp2_nv>

    /// - Parameter headers: regular headers (no pseudo-headers); names are lowercased as HTTP/2 requires.
    public init(_ headers: [HTTP2Header]) {
        let lowered = headers.map { (name: $0.name.lowercased(), value: $0.value) }
        self.headers = lowered
        let size = lowered.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        storage = .allocate(byteCount: max(1, size), alignment: 1)
        entries = .allocate(capacity: lowered.count)
        var offset = 0
        let flags = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        for (index, header) in lowered.enumerated() {
            let name = storage.baseAddress! + offset
            UnsafeMutableRawBufferPointer(rebasing: storage[offset...]).copyBytes(from: header.name.utf8)
            offset += header.name.utf8.count
            let value = storage.baseAddress! + offset
            UnsafeMutableRawBufferPointer(rebasing: storage[offset...]).copyBytes(from: header.value.utf8)
            offset += header.value.utf8.count
            entries.baseAddress!.advanced(by: index).initialize(to: nghttp2_nv(
                name: name.assumingMemoryBound(to: UInt8.self), value: value.assumingMemoryBound(to: UInt8.self),
                namelen: header.name.utf8.count, valuelen: header.value.utf8.count, flags: flags))
        }
    }

    deinit {
        entries.deallocate()
        storage.deallocate()
    }
}

/// Lays out one request's header list for `nghttp2_submit_request`, reusing its buffers from
/// request to request: pseudo-headers first, then the shared block (read in place), then the
/// request's own headers, then its unique ones never-indexed, so a per-request id does not evict
/// reusable entries such as the JWT from the peer's HPACK table. `:path` is never-indexed for the
/// same reason (APNs paths name one device).
struct HTTP2RequestHeaderList {
    private struct Field {
        var nameStart: Int, nameCount: Int, valueStart: Int, valueCount: Int, flags: UInt8
    }

    private var bytes: [UInt8] = []
    private var fields: [Field] = []
    private var list: [nghttp2_nv] = []

    private static let plain = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
    private static let neverIndexed = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)

    mutating func withList<R>(for request: HTTP2Request, _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        list.removeAll(keepingCapacity: true)
        append(":method", request.method, Self.plain)
        append(":scheme", request.scheme, Self.plain)
        append(":authority", request.authority, Self.plain)
        append(":path", request.path, Self.neverIndexed)
        let pseudoCount = fields.count
        for header in request.headers { append(header.name, header.value, Self.plain, lowercasing: true) }
        for header in request.uniqueHeaders { append(header.name, header.value, Self.neverIndexed, lowercasing: true) }
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeMutablePointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            func entry(_ field: Field) -> nghttp2_nv {
                nghttp2_nv(name: base + field.nameStart, value: base + field.valueStart, namelen: field.nameCount,
                           valuelen: field.valueCount, flags: field.flags)
            }
            for field in fields[..<pseudoCount] { list.append(entry(field)) }
            if let shared = request.sharedHeaders { list.append(contentsOf: shared.entries) }
            for field in fields[pseudoCount...] { list.append(entry(field)) }
            return list.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }

    private mutating func append(_ name: String, _ value: String, _ flags: UInt8, lowercasing: Bool = false) {
        let nameStart = bytes.count
        if lowercasing, name.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) {
            bytes.append(contentsOf: name.lowercased().utf8)
        } else {
            bytes.append(contentsOf: name.utf8)
        }
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        fields.append(Field(nameStart: nameStart, nameCount: valueStart - nameStart, valueStart: valueStart,
                            valueCount: bytes.count - valueStart, flags: flags))
    }
}
