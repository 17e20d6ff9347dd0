import CNGHTTP2

/// Owns one nghttp2_session (client or server) and frees it in deinit. nghttp2 calls back into
/// the owning `HTTP2Channel`, whose address travels as the session's user_data; the channel
/// owns this object, so the pointer is valid whenever nghttp2 can call.
final class NGHTTP2Session {
    let pointer: OpaquePointer

    /// - Parameter autoPingAck: false only for fault injection (a peer that never answers PINGs).
    init(server: Bool, channel: HTTP2Channel, autoPingAck: Bool = true) throws(HTTP2Error) {
        var callbacksPointer: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacksPointer) == 0, let callbacks = callbacksPointer else {
            throw .protocolError("nghttp2_session_callbacks_new failed")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }

        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            return HTTP2Channel.from(user).onBeginHeaders(frame)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let user, let name, let value else { return 0 }
            return HTTP2Channel.from(user).onHeader(frame,
                                                     name: UnsafeBufferPointer(start: name, count: nameLength),
                                                     value: UnsafeBufferPointer(start: value, count: valueLength))
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let user, let data else { return 0 }
            return HTTP2Channel.from(user).onDataChunk(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            return HTTP2Channel.from(user).onFrameReceived(frame)
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            return HTTP2Channel.from(user).onFrameSent(frame)
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, errorCode, user in
            guard let frame, let user else { return 0 }
            return HTTP2Channel.from(user).onFrameNotSent(frame, libraryError: errorCode)
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            guard let user else { return 0 }
            return HTTP2Channel.from(user).onStreamClosed(streamID: streamID, errorCode: errorCode)
        }

        var optionPointer: OpaquePointer?
        guard nghttp2_option_new(&optionPointer) == 0, let option = optionPointer else {
            throw .protocolError("nghttp2_option_new failed")
        }
        defer { nghttp2_option_del(option) }
        // Until the peer's SETTINGS arrive, assume the strictest limit rather than nghttp2's 100.
        nghttp2_option_set_peer_max_concurrent_streams(option, 1)
        if !autoPingAck { nghttp2_option_set_no_auto_ping_ack(option, 1) }

        var sessionPointer: OpaquePointer?
        let user = Unmanaged.passUnretained(channel).toOpaque()
        let rc = server ? nghttp2_session_server_new2(&sessionPointer, callbacks, user, option)
                        : nghttp2_session_client_new2(&sessionPointer, callbacks, user, option)
        guard rc == 0, let session = sessionPointer else {
            throw .protocolError("cannot create nghttp2 session: \(NGHTTP2Session.describe(rc))")
        }
        pointer = session
    }

    deinit { nghttp2_session_del(pointer) }

    var wantsRead: Bool { nghttp2_session_want_read(pointer) != 0 }
    var wantsWrite: Bool { nghttp2_session_want_write(pointer) != 0 }

    func submitSettings(_ settings: [(nghttp2_settings_id, UInt32)]) -> Int32 {
        let entries = settings.map { nghttp2_settings_entry(settings_id: Int32(bitPattern: $0.0.rawValue), value: $0.1) }
        return entries.withUnsafeBufferPointer {
            nghttp2_submit_settings(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress, $0.count)
        }
    }

    func remoteSetting(_ id: nghttp2_settings_id) -> UInt32 {
        nghttp2_session_get_remote_settings(pointer, id)
    }

    /// A data provider whose reads are answered by the channel's `readBody`.
    static func bodyProvider() -> nghttp2_data_provider {
        herald_nghttp2_data_provider { _, streamID, buffer, length, flags, _, user in
            guard let user, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
            return HTTP2Channel.from(user).readBody(streamID: streamID,
                                                    into: UnsafeMutableBufferPointer(start: buffer, count: length),
                                                    flags: flags)
        }
    }

    /// Lays all names and values out in one buffer and hands nghttp2 an nv array into it
    /// (nghttp2 copies them during the submit call).
    static func withHeaderBlock<R>(_ headers: [HTTP2Header], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var storage: [UInt8] = []
        storage.reserveCapacity(headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } + 1)
        var ranges: [(Int, Int, Int, Int)] = []
        ranges.reserveCapacity(headers.count)
        for header in headers {
            let nameStart = storage.count
            storage.append(contentsOf: header.name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: header.value.utf8)
            ranges.append((nameStart, valueStart - nameStart, valueStart, storage.count - valueStart))
        }
        storage.append(0)
        return storage.withUnsafeMutableBufferPointer { bytes in
            let base = bytes.baseAddress!
            let nvs = ranges.map {
                nghttp2_nv(name: base + $0.0, value: base + $0.2, namelen: $0.1, valuelen: $0.3,
                           flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return nvs.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }

    static func describe(_ code: Int32) -> String {
        String(cString: nghttp2_strerror(code))
    }

    static func describe(_ code: Int) -> String {
        describe(Int32(truncatingIfNeeded: code))
    }
}

extension nghttp2_frame_type {
    var byte: UInt8 { UInt8(rawValue) }
}
