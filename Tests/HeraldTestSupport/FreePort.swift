import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why no free port could be had.
public struct FreePortError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// A port nothing listens on right now: bound on loopback, read back, and closed. For servers
/// that cannot bind port 0 and report the port back (nghttpd, openssl s_server, a server started
/// again on the same port), and for a port where nothing listens; every suite takes it from here.
public func unusedLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw FreePortError("socket() failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress -> Bool in
            bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
        }
    }
    guard bound else { throw FreePortError("cannot bind a loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
}
