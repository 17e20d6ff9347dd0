/// The last line of defence against a secret in a log line: whatever a call site wrote, a JWT,
/// a PEM block (a key or certificate) or a full device token (64 or more hex digits) leaves the
/// process shortened to a harmless prefix.
///
/// Call sites already log device tokens shortened (`DeviceRules.redacted`) and never log keys;
/// this catches the one that forgets.
public enum LogRedaction {
    /// `text` with every secret-shaped run replaced.
    ///
    /// ```swift
    /// LogRedaction.scrub("bearer eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJUIn0.c2ln") // "bearer eyJhbGci…[jwt]"
    /// ```
    public static func scrub(_ text: String) -> String {
        guard mightHoldSecret(text) else { return text }
        var result = text
        if let begin = result.range(of: "-----BEGIN") {
            // Everything from a PEM header on: a key must not survive even in part.
            result = String(result[..<begin.lowerBound]) + "[pem]"
        }
        return result.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            if isJWT(word) { return String(word.prefix(8)) + "…[jwt]" }
            if isDeviceToken(word) { return String(word.prefix(8)) + "…[token]" }
            return String(word)
        }.joined(separator: " ")
    }

    private static func mightHoldSecret(_ text: String) -> Bool {
        text.contains("eyJ") || text.contains("-----BEGIN") || text.utf8.count >= 64
    }

    private static func isJWT(_ word: Substring) -> Bool {
        let parts = word.split(separator: ".", omittingEmptySubsequences: false)
        return word.hasPrefix("eyJ") && parts.count == 3 && parts.allSatisfy { !$0.isEmpty }
    }

    private static func isDeviceToken(_ word: Substring) -> Bool {
        var hexRun = 0
        for byte in word.utf8 {
            let isHex = (48...57).contains(byte) || (97...102).contains(byte) || (65...70).contains(byte)
            hexRun = isHex ? hexRun + 1 : 0
            if hexRun >= 64 { return true }
        }
        return false
    }
}
