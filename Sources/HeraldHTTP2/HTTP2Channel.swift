import CNGHTTP2
#if canImport(Glibc)
import Glibc
#endif

/// One TLS + HTTP/2 connection driven by an event loop: it moves bytes socket ⇄ TLS ⇄ nghttp2
/// and batches every frame nghttp2 wants to send into few TLS records and few send(2) calls.
/// Client and server subclasses add stream semantics by overriding the nghttp2 hooks.
///
/// Thread confinement: every member is touched only on `loop`'s thread (other threads reach it
/// through `loop.execute`), which is why `@unchecked Sendable` is sound here.
class HTTP2Channel: EventLoopChannel, @unchecked Sendable {
    enum State {
        /// `draining`: the session is over and our last bytes are sent or going; the write side is
        /// shut (FIN) and input is read and dropped until the peer closes or a short deadline, so
        /// the close never becomes an RST that would destroy answers the peer has not read yet.
        case idle, connecting, handshaking, open, draining, closed
    }

    let loop: EventLoop
    let tlsContext: TLSContext
    private(set) var state: State = .idle
    /// What the channel was doing when it closed, so errors can say "during the handshake".
    private(set) var stateBeforeClose: State = .idle
    private(set) var socket: Socket?
    private(set) var tls: TLSConnection?
    /// Freed with the channel, never earlier: nghttp2 may be on the stack when we close.
    var session: NGHTTP2Session?

    private var output: [UInt8] = []
    private var outputOffset = 0
    private var plaintext: [UInt8] = []
    private let socketBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private let clearBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private var flushScheduled = false
    private var connectAddresses: [SocketAddress] = []
    private var serverName: String?
    var lastReadAt = MonotonicTime.now()
    /// A send failed (the peer closed or reset the connection): nothing more is written, but
    /// input is still read and processed until the peer's EOF (or a short deadline), so answers
    /// the peer sent before it closed end their streams; only then does the channel fail.
    private(set) var writeFailed = false
    private var writeFailure: (reason: String, deadline: MonotonicTime)?
    /// While draining: when to give up waiting for the peer's close, and the reason to report.
    private var drainDeadline: MonotonicTime?
    private var drainReason: HTTP2Error?
    private var writeShut = false

    /// How long a graceful close waits for the peer to close its side.
    private static let drainTimeout: Duration = .seconds(1)

    /// Output beyond this waits inside nghttp2, so a slow peer cannot make us buffer unboundedly.
    private static let outputHighWater = 512 * 1024
    private static let recordSize = 16 * 1024

    init(loop: EventLoop, tlsContext: TLSContext) {
        self.loop = loop
        self.tlsContext = tlsContext
    }

    deinit {
        socketBuffer.deallocate()
        clearBuffer.deallocate()
    }

    static func from(_ user: UnsafeMutableRawPointer) -> HTTP2Channel {
        Unmanaged<HTTP2Channel>.fromOpaque(user).takeUnretainedValue()
    }

    // MARK: setup

    /// Client side: resolve, then try each address in turn (loop thread; may block on DNS).
    func startConnecting(host: String, port: Int, serverName: String?) {
        self.serverName = serverName
        do {
            connectAddresses = try SocketAddress.resolve(host: host, port: port)
        } catch {
            fail(error)
            return
        }
        loop.register(self)
        connectNextAddress(lastError: "no addresses for \(host)")
    }

    private func connectNextAddress(lastError: String) {
        guard !connectAddresses.isEmpty else {
            fail(.connectFailed(lastError))
            return
        }
        let address = connectAddresses.removeFirst()
        do {
            socket = try Socket.startConnect(to: address)
            state = .connecting
        } catch {
            connectNextAddress(lastError: error.description)
        }
    }

    private func finishConnecting() {
        guard let socket else { return }
        let error = socket.pendingError()
        if error != 0 {
            // The next address's socket may reuse this descriptor's number: epoll must not
            // believe it already watches it.
            loop.forget(descriptor: socket.fd)
            socket.close()
            self.socket = nil
            connectNextAddress(lastError: "connection refused or unreachable: \(errnoString(error))")
            return
        }
        do {
            tls = try TLSConnection(context: tlsContext, serverName: serverName)
        } catch {
            fail(error)
            return
        }
        state = .handshaking
        advanceHandshake()
        flushNow()
    }

    /// Server side: adopt an accepted socket and wait for the ClientHello.
    func adopt(_ socket: Socket) {
        self.socket = socket
        do {
            tls = try TLSConnection(context: tlsContext, serverName: nil)
        } catch {
            fail(error)
            return
        }
        state = .handshaking
        loop.register(self)
    }

    // MARK: EventLoopChannel

    var fd: Int32 { socket?.fd ?? -1 }
    var wantsRead: Bool { state == .handshaking || state == .open || state == .draining }
    var wantsWrite: Bool { state == .connecting || (!writeFailed && outputOffset < output.count) }
    var nextDeadline: MonotonicTime? { state == .draining ? drainDeadline : writeFailure?.deadline }

    func tick(now: MonotonicTime) {
        if state == .draining, let drainDeadline, now >= drainDeadline { finishDraining() }
        if state == .open, let writeFailure, now >= writeFailure.deadline { fail(.connectionClosed(writeFailure.reason)) }
    }

    func readable() {
        if state == .draining {
            discardInput()
            return
        }
        guard let socket, let tls, state == .handshaking || state == .open else { return }
        // Until EAGAIN: each loop iteration then handles everything the peer sent so far.
        while true {
            switch socket.read(into: socketBuffer) {
            case .done(let count):
                lastReadAt = MonotonicTime.now()
                tls.feed(UnsafeRawBufferPointer(rebasing: socketBuffer[0..<count]))
                guard processTLSInput() else { return }
            case .wouldBlock:
                scheduleFlush()
                return
            case .endOfFile:
                fail(.connectionClosed(writeFailure?.reason ?? "the peer closed the connection"))
                return
            case .failed(let code):
                fail(.connectionClosed("read failed: \(errnoString(code))"))
                return
            }
        }
    }

    func writable() {
        if state == .connecting {
            finishConnecting()
            return
        }
        sendOutput()
        if state == .open { flushNow() }
        if state == .draining { shutWriteWhenSent() }
    }

    func loopStopping() {
        fail(.connectionClosed("the event loop was shut down"))
    }

    // MARK: data path

    /// Returns false when the channel closed while processing.
    private func processTLSInput() -> Bool {
        guard let tls else { return false }
        if state == .handshaking {
            advanceHandshake()
            if state != .open { return state != .closed }
        }
        while state == .open {
            switch tls.read(into: clearBuffer) {
            case .bytes(let count):
                guard let session else { return false }
                let rc = nghttp2_session_mem_recv(session.pointer, clearBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
                if rc < 0 {
                    fail(.protocolError("receiving failed: \(NGHTTP2Session.describe(rc))"))
                    return false
                }
            case .needMoreInput:
                return true
            case .closed:
                fail(.connectionClosed("the peer ended the TLS session"))
                return false
            case .failed(let error):
                fail(error)
                return false
            }
        }
        return state != .closed
    }

    private func advanceHandshake() {
        guard let tls else { return }
        switch tls.handshake() {
        case .inProgress:
            tls.drainOutput(into: &output)
            sendOutput()
        case .failed(let error):
            tls.drainOutput(into: &output)  // deliver the alert so the peer sees why
            fail(error)
        case .complete:
            state = .open
            do {
                try handshakeCompleted(tls)
            } catch {
                fail(error)
                return
            }
            flushNow()
        }
    }

    /// Coalesces writes requested by many tasks into one flush per loop iteration.
    func scheduleFlush() {
        guard !flushScheduled, state == .open else { return }
        flushScheduled = true
        loop.scheduleFlush(self)
    }

    func flushNow() {
        flushScheduled = false
        guard let tls, state == .open || state == .handshaking, !writeFailed else { return }
        if state == .open, let session {
            while output.count - outputOffset < HTTP2Channel.outputHighWater, session.wantsWrite {
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session.pointer, &data)
                if count < 0 {
                    fail(.protocolError("sending failed: \(NGHTTP2Session.describe(count))"))
                    return
                }
                guard count > 0, let data else { break }
                plaintext.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
                if plaintext.count >= HTTP2Channel.recordSize { guard encryptPlaintext(tls) else { return } }
            }
            guard encryptPlaintext(tls) else { return }
        }
        tls.drainOutput(into: &output)
        sendOutput()
        if state == .open, let session, !session.wantsRead, !session.wantsWrite, outputOffset == output.count {
            sessionFinished()
        }
    }

    private func encryptPlaintext(_ tls: TLSConnection) -> Bool {
        guard !plaintext.isEmpty else { return true }
        let error = plaintext.withUnsafeBytes { tls.write($0) }
        plaintext.removeAll(keepingCapacity: true)
        if let error {
            fail(error)
            return false
        }
        tls.drainOutput(into: &output)
        return true
    }

    private func sendOutput() {
        guard let socket, !writeFailed else { return }
        while outputOffset < output.count {
            let result = output.withUnsafeBytes { socket.write(UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            switch result {
            case .done(let count):
                outputOffset += count
            case .wouldBlock, .endOfFile:
                compactOutput()
                return
            case .failed(let code):
                output.removeAll()
                outputOffset = 0
                writeFailed = true
                let reason = "write failed: \(errnoString(code))"
                // The peer may have answered before it closed: read on until its EOF, so those
                // answers end their streams, and fail only what is left.
                if state == .open { readBufferedInput() }
                if state == .open {
                    writeFailure = (reason, MonotonicTime.now() + HTTP2Channel.drainTimeout)
                    return
                }
                fail(.connectionClosed(reason))
                return
            }
        }
        compactOutput()
    }

    /// Reads and processes whatever the socket holds now, without waiting for more.
    private func readBufferedInput() {
        guard let socket, let tls else { return }
        while state == .open {
            guard case .done(let count) = socket.read(into: socketBuffer) else { return }
            tls.feed(UnsafeRawBufferPointer(rebasing: socketBuffer[0..<count]))
            guard processTLSInput() else { return }
        }
    }

    // MARK: graceful close

    /// Ends an open channel without losing what the peer has not read: push out our last frames
    /// and the TLS close_notify, shut the write side once they are sent, then drop input until
    /// the peer closes (or a second passes) before closing the socket.
    func closeGracefully(_ reason: HTTP2Error) {
        guard state == .open else { return }
        stateBeforeClose = state
        pushOutFinalFrames()
        state = .draining
        drainReason = reason
        drainDeadline = MonotonicTime.now() + HTTP2Channel.drainTimeout
        sendOutput()
        shutWriteWhenSent()
    }

    private func shutWriteWhenSent() {
        guard state == .draining, !writeShut, writeFailed || outputOffset == output.count else { return }
        writeShut = true
        socket?.shutdownWrite()
    }

    private func discardInput() {
        guard let socket else { return }
        while true {
            switch socket.read(into: socketBuffer) {
            case .done: continue
            case .wouldBlock: return
            case .endOfFile, .failed:
                finishDraining()
                return
            }
        }
    }

    private func finishDraining() {
        guard state == .draining else { return }
        fail(drainReason ?? .connectionClosed("the HTTP/2 session ended"))
    }

    private func compactOutput() {
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        } else if outputOffset > 256 * 1024 {
            output.removeFirst(outputOffset)
            outputOffset = 0
        }
    }

    /// The single way a channel ends: best-effort send of what is queued (GOAWAY, alerts), close
    /// the socket, leave the loop, and let the subclass fail whatever is outstanding.
    func fail(_ error: HTTP2Error) {
        guard state != .closed else { return }
        let wasOpen = state == .open
        if state != .draining { stateBeforeClose = state }
        state = .closed
        if wasOpen { pushOutFinalFrames() }
        tls?.drainOutput(into: &output)
        sendOutput()
        socket?.close()
        loop.deregister(self)
        didClose(error)
    }

    /// Encrypts anything already submitted (e.g. our GOAWAY, our last answers) and the TLS
    /// close_notify, without waiting.
    private func pushOutFinalFrames() {
        guard let tls, let session else { return }
        var data: UnsafePointer<UInt8>?
        var budget = 64
        while budget > 0, session.wantsWrite {
            budget -= 1
            let count = nghttp2_session_mem_send(session.pointer, &data)
            guard count > 0, let data else { break }
            plaintext.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        if !plaintext.isEmpty { _ = plaintext.withUnsafeBytes { tls.write($0) } }
        plaintext.removeAll()
        tls.shutdown()
        tls.drainOutput(into: &output)
    }

    // MARK: hooks for subclasses

    func handshakeCompleted(_ tls: TLSConnection) throws(HTTP2Error) {}
    func didClose(_ error: HTTP2Error) {}
    /// nghttp2 has nothing left to read or write (GOAWAY exchanged, streams done).
    func sessionFinished() { fail(.connectionClosed("the HTTP/2 session ended")) }

    func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 { 0 }
    func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 { 0 }
    func onDataChunk(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) -> Int32 { 0 }
    func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 { 0 }
    func onFrameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 { 0 }
    func onFrameNotSent(_ frame: UnsafePointer<nghttp2_frame>, libraryError: Int32) -> Int32 { 0 }
    func onStreamClosed(streamID: Int32, errorCode: UInt32) -> Int32 { 0 }
    func readBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, flags: UnsafeMutablePointer<UInt32>) -> Int {
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        return 0
    }
}
