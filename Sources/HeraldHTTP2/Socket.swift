#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A resolved socket address, kept as raw bytes so it can be retried without re-resolving.
struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    var family: Int32 { Int32(storage.ss_family) }

    var description: String {
        var copy = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let rc = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                            NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard rc == 0 else { return "<address>" }
        let h = stringFromCBuffer(host), s = stringFromCBuffer(service)
        return family == AF_INET6 ? "[\(h)]:\(s)" : "\(h):\(s)"
    }

    /// Blocking DNS resolution; only ever called on an event loop thread or at server start.
    static func resolve(host: String, port: Int, passive: Bool = false) throws(HTTP2Error) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : AI_ADDRCONFIG
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw .connectFailed("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
            }
            addresses.append(SocketAddress(storage: storage, length: info.pointee.ai_addrlen))
            cursor = info.pointee.ai_next
        }
        return addresses
    }
}

/// Owns one non-blocking socket descriptor and closes it exactly once (on `close()` or deinit).
final class Socket {
    private(set) var fd: Int32

    enum IOResult {
        case done(Int)
        case wouldBlock
        case endOfFile
        case failed(Int32)
    }

    init(adopting fd: Int32) {
        self.fd = fd
    }

    deinit { close() }

    /// Sends FIN after what is queued, keeping the read side open.
    func shutdownWrite() {
        if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }
    }

    func close() {
        if fd >= 0 {
            _ = Glibc.close(fd)
            fd = -1
        }
    }

    /// Starts a non-blocking connect; completion is signalled by writability and `pendingError`.
    static func startConnect(to address: SocketAddress) throws(HTTP2Error) -> Socket {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed("socket(): \(errnoString())") }
        let sock = Socket(adopting: fd)
        sock.setNoDelay()
        var storage = address.storage
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if rc != 0 && errno != EINPROGRESS {
            throw .connectFailed("connect to \(address): \(errnoString())")
        }
        return sock
    }

    /// Creates a listening socket; SO_REUSEADDR so restarts do not wait out TIME_WAIT.
    static func listen(on address: SocketAddress, backlog: Int32 = 256) throws(HTTP2Error) -> Socket {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed("socket(): \(errnoString())") }
        let sock = Socket(adopting: fd)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = address.storage
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, address.length) }
        }
        guard rc == 0 else { throw .connectFailed("bind \(address): \(errnoString())") }
        guard Glibc.listen(fd, backlog) == 0 else { throw .connectFailed("listen \(address): \(errnoString())") }
        return sock
    }

    /// Accepts one pending connection, already non-blocking with TCP_NODELAY; nil when none wait.
    func accept() -> Socket? {
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else { return nil }
        let sock = Socket(adopting: client)
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        sock.setNoDelay()
        return sock
    }

    /// HTTP/2 multiplexes small frames; Nagle would add latency to every request.
    func setNoDelay() {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The errno of a finished non-blocking connect (0 on success).
    func pendingError() -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        return error
    }

    var localPort: Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return 0 }
        if Int32(storage.ss_family) == AF_INET6 {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 { return .done(n) }
            if n == 0 { return .endOfFile }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed(errno)
        }
    }

    /// MSG_NOSIGNAL: a peer that vanished must produce EPIPE, not kill the process with SIGPIPE.
    func write(_ buffer: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let n = send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .done(n) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed(errno)
        }
    }
}

func errnoString(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// Decodes a NUL-terminated C buffer filled in by a libc or OpenSSL call.
func stringFromCBuffer(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
