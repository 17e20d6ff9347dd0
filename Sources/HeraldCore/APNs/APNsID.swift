#if canImport(Glibc)
import Glibc
#endif

/// A fresh `apns-id`: a random (version 4) UUID in lowercase, as APNs echoes it.
///
/// The bytes come from `arc4random_buf`, a generator in the process seeded by the kernel.
/// Foundation's `UUID()` on Linux opens and reads `/dev/urandom` on every call, and Swift's
/// `SystemRandomNumberGenerator` makes a `getrandom` system call per eight bytes: at a thousand
/// pushes per request they were a tenth, then a twentieth, of the server's CPU.
public enum APNsID {
    public static func random() -> String {
        var bytes = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &bytes) { raw in
            arc4random_buf(raw.baseAddress!, raw.count)
            raw[6] = (raw[6] & 0x0f) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3f) | 0x80  // RFC 4122 variant
            let digits = Array("0123456789abcdef".utf8)
            var text = [UInt8]()
            text.reserveCapacity(36)
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
                text.append(digits[Int(raw[index] >> 4)])
                text.append(digits[Int(raw[index] & 0x0f)])
            }
            return String(decoding: text, as: UTF8.self)
        }
    }
}
