import COpenSSL

/// Comparisons whose running time does not depend on where secret bytes differ.
public enum ConstantTime {
    /// True when `a` and `b` hold the same bytes.
    ///
    /// Lengths are public (a MAC's length is fixed by its algorithm), so a length mismatch returns
    /// false at once; equal-length contents go through `CRYPTO_memcmp`, which OpenSSL keeps free of
    /// early exits, so a forger cannot learn a correct prefix byte by byte from response times.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }
}
