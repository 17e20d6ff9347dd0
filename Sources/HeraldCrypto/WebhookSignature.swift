/// Stripe-style webhook signatures: `Herald-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]`.
///
/// The signed payload is `"<t>.<raw body>"`, so the timestamp cannot be swapped without breaking
/// the code, and an old request replayed later is refused by the tolerance check. `v1` is the
/// lowercase hex HMAC-SHA256 of that payload under a shared secret; several `v1` values let a
/// sender sign with the old and new secret while a rotation is under way.
public enum WebhookSignature {
    /// Why a request was not accepted. Raw values are the stable API reasons; the caller maps all
    /// of them to 401, which is why they are not `HeraldError`s (whose kinds map to 4xx of input).
    public enum Refusal: String, Error, Sendable, CaseIterable {
        /// No `Herald-Signature` header at all.
        case missingSignature
        /// The header is present but not `t=<digits>,v1=<64 hex>...`.
        case invalidSignatureHeader
        /// The signature is genuine but the timestamp is outside the tolerance.
        case staleTimestamp
        /// No `v1` value matches any secret.
        case invalidSignature
    }

    public static let headerName = "Herald-Signature"
    /// Five minutes, as Stripe uses: enough for clock skew and a retry, short enough that a captured
    /// request cannot be replayed much later.
    public static let defaultToleranceSeconds = 300

    /// A parsed header.
    public struct Header: Hashable, Sendable {
        public var timestamp: Int
        /// The decoded `v1` codes, in header order.
        public var signatures: [[UInt8]]

        public init(timestamp: Int, signatures: [[UInt8]]) {
            self.timestamp = timestamp
            self.signatures = signatures
        }

        /// Parses a header value. Keys other than `t` and `v1` are ignored, so a later scheme
        /// (`v2=`) can be added beside `v1` without breaking old receivers.
        public init(parsing text: String) throws(Refusal) {
            var timestamp: Int?
            var signatures: [[UInt8]] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let equals = item.firstIndex(of: "=") else { throw .invalidSignatureHeader }
                let key = item[..<equals].trimmingSpaces
                let value = item[item.index(after: equals)...].trimmingSpaces
                switch key {
                case "t":
                    // Digits only: `Int("+5")` and `Int("-5")` would pass, and a second `t` would be
                    // ambiguous about which one was signed.
                    guard timestamp == nil, !value.isEmpty, value.utf8.allSatisfy(\.isASCIIDigit),
                          let seconds = Int(value) else { throw .invalidSignatureHeader }
                    timestamp = seconds
                case "v1":
                    guard let code = Hex.decode(value), code.count == HMACSHA256.byteCount else {
                        throw .invalidSignatureHeader
                    }
                    signatures.append(code)
                default:
                    continue
                }
            }
            guard let timestamp, !signatures.isEmpty else { throw .invalidSignatureHeader }
            self.init(timestamp: timestamp, signatures: signatures)
        }

        /// The header value, `t=...,v1=...`.
        public var value: String {
            (["t=\(timestamp)"] + signatures.map { "v1=" + Hex.encode($0) }).joined(separator: ",")
        }
    }

    /// The `v1` code of `body` sent at `timestamp`, under `secret` (its UTF-8 bytes are the key).
    public static func code(secret: String, timestamp: Int, body: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body)
    }

    /// The header value signing `body` with one secret.
    public static func sign(secret: String, timestamp: Int, body: [UInt8]) -> String {
        sign(secrets: [secret], timestamp: timestamp, body: body)
    }

    /// The header value signing `body` with each secret, one `v1` per secret, so a receiver that
    /// knows either the old or the new secret accepts it during a rotation.
    public static func sign(secrets: [String], timestamp: Int, body: [UInt8]) -> String {
        Header(timestamp: timestamp, signatures: secrets.map { code(secret: $0, timestamp: timestamp, body: body) }).value
    }

    /// Checks a request; returns its timestamp when accepted.
    ///
    /// The signature is checked before the timestamp, so `staleTimestamp` is only ever said about a
    /// genuine request and a forger learns nothing from which refusal comes back.
    ///
    /// - Parameters:
    ///   - header: the `Herald-Signature` value, nil when absent.
    ///   - body: the raw bytes as received, before any JSON decoding (re-encoding would change them).
    ///   - secrets: every secret currently accepted; any may match.
    ///   - now: unix seconds.
    ///   - toleranceSeconds: how far `t` may be from `now`, either way.
    @discardableResult
    public static func verify(header: String?, body: [UInt8], secrets: [String], now: Int,
                              toleranceSeconds: Int = defaultToleranceSeconds) throws(Refusal) -> Int {
        guard let header else { throw .missingSignature }
        let parsed = try Header(parsing: header)
        var matched = false
        for secret in secrets {
            let expected = code(secret: secret, timestamp: parsed.timestamp, body: body)
            for candidate in parsed.signatures where ConstantTime.equals(expected, candidate) {
                matched = true
            }
        }
        guard matched else { throw .invalidSignature }
        // Overflow-safe distance: `now` comes from the caller and `t` from the wire.
        let (difference, overflow) = now.subtractingReportingOverflow(parsed.timestamp)
        guard !overflow, difference.magnitude <= UInt(max(0, toleranceSeconds)) else { throw .staleTimestamp }
        return parsed.timestamp
    }
}

/// Lowercase hex, as the header carries it.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Accepts either case, since some senders uppercase hex; nil on odd length or a non-hex digit.
    static func decode(_ text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

private extension UInt8 {
    var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}

private extension Substring {
    /// Foundation-free trim: the header may be written `t=1, v1=...`.
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}

extension WebhookSignature {
    /// What identifies one signed request for replay detection: the digest of the signed message
    /// (timestamp and body). A replay repeats it exactly, however the header's `v1=` entries are
    /// reordered, repeated or padded with other signatures.
    public static func replayKey(timestamp: Int, body: [UInt8]) -> String {
        Hex.encode(SHA256.hash(Array("\(timestamp).".utf8) + body))
    }
}
