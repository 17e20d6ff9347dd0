import COpenSSL

/// SHA-256 through OpenSSL's EVP interface.
public enum SHA256 {
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // EVP_Digest cannot fail for SHA-256 on in-memory input short of memory exhaustion.
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil)
        return digest
    }
}
