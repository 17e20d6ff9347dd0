import COpenSSL

/// PEM text written by OpenSSL into memory, for keys that are exported to be stored.
enum PEMOutput {
    /// Runs `write` against a fresh memory BIO and returns what it wrote.
    ///
    /// The BIO is a secure-memory one, cleared when freed, since what passes through it is often
    /// a private key.
    static func text(_ operation: String, _ write: (OpaquePointer) -> Int32) throws -> String {
        guard let bio = BIO_new(BIO_s_secmem()) else { throw OpenSSLError.drain("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw OpenSSLError.drain(operation) }
        let pending = Int(herald_BIO_pending(bio))
        var bytes = [UInt8](repeating: 0, count: pending)
        guard pending > 0, BIO_read(bio, &bytes, Int32(pending)) == Int32(pending) else {
            throw OpenSSLError.drain(operation)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
