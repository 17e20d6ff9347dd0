import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 keep-alive client over one TCP connection to 127.0.0.1, so
/// benchmark round trips are timed without a client framework's own costs in the way. It reads
/// `Content-Length` and chunked bodies, which is what the server sends.
final class HTTPConnection {
    struct Response {
        var status: Int
        var body: [UInt8]
    }

    private let port: Int
    private let socket: Int32
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    init(port: Int) throws {
        self.port = port
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw OptionsError("socket: errno \(errno)") }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw OptionsError("connect to 127.0.0.1:\(port): errno \(code)")
        }
        socket = fd
    }

    deinit { close(socket) }

    /// Sends one request and reads its whole response.
    func request(_ method: String, _ path: String, body: String? = nil) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if let body {
            head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        try write(Array((head + "\r\n" + (body ?? "")).utf8))
        return try readResponse()
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw OptionsError("send: errno \(errno)") }
            sent += n
        }
    }

    /// Reads more bytes into the buffer; throws when the server closed the connection.
    private func fill() throws {
        let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else { throw OptionsError(n == 0 ? "the server closed the connection" : "recv: errno \(errno)") }
        buffer.append(contentsOf: chunk[0..<n])
    }

    private func readLine() throws -> String {
        while true {
            if let end = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let line = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                return line
            }
            try fill()
        }
    }

    private func take(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private func readResponse() throws -> Response {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw OptionsError("bad status line '\(statusLine)'") }
        var length: Int?
        var chunked = false
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { length = Int(value) }
            if name == "transfer-encoding", value.lowercased().contains("chunked") { chunked = true }
        }
        if chunked {
            var body: [UInt8] = []
            while true {
                let size = Int(try readLine().split(separator: ";").first ?? "", radix: 16) ?? 0
                if size == 0 {
                    while try !readLine().isEmpty {}
                    return Response(status: status, body: body)
                }
                body += try take(size)
                _ = try take(2)
            }
        }
        return Response(status: status, body: try take(length ?? 0))
    }
}
