import Foundation

/// The JWS compact serialization (RFC 7515 §7.1) shared by the VAPID and OAuth tokens:
/// `base64url(header).base64url(claims).base64url(signature)`.
enum JWT {
    /// `base64url(header).base64url(claims)`, the text a JWS signs. Both are JSON object texts.
    static func signingInput(header: String, claims: String) -> String {
        "\(Base64URL.encode(Array(header.utf8))).\(Base64URL.encode(Array(claims.utf8)))"
    }

    /// A compact JWT taken apart; its signature is not checked yet.
    struct Parsed {
        var header: [String: Any]
        var claims: [String: Any]
        var signature: [UInt8]
        /// The bytes the signature covers: the first two parts as they were sent.
        var signingInput: [UInt8]

        /// Nil unless `jwt` is three base64url parts, the first two JSON objects.
        init?(_ jwt: some StringProtocol) {
            let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3,
                  let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
                  let signature = Base64URL.decode(parts[2]),
                  let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
                  let claims = try? JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any]
            else { return nil }
            self.header = header
            self.claims = claims
            self.signature = signature
            signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        }

        /// A claim that is a JSON number, in whole seconds (NumericDate, RFC 7519 §2).
        func seconds(_ name: String) -> Int? {
            (claims[name] as? NSNumber)?.intValue
        }
    }

    /// `text` as a JSON string literal, quotes included: claims such as a VAPID `sub` or a
    /// service account's email come from configuration and must not break out of their string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
