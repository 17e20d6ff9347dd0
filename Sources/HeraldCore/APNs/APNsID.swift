/// A fresh `apns-id`: a random (version 4) UUID in lowercase, as APNs echoes it.
///
/// Made from the system generator directly. Foundation's `UUID()` on Linux opens and reads
/// `/dev/urandom` on every call, which at a thousand pushes per request was a tenth of the
/// server's CPU.
public enum APNsID {
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
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
