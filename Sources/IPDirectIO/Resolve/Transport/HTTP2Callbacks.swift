import CEvent

/// Every nghttp2 callback in one place. Each recovers its `HTTP2Connection` from the session's user
/// data without retaining it and calls one method; nghttp2 calls them only from inside
/// `nghttp2_session_mem_recv` / `nghttp2_session_mem_send`, which the connection calls while alive.
enum HTTP2Callbacks {
    /// Streams opened before the server's first SETTINGS frame says how many it allows.
    static let streamsBeforeServerSettings: UInt32 = 1

    private static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2Connection {
        Unmanaged<HTTP2Connection>.fromOpaque(userData!).takeUnretainedValue()
    }

    static let header: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value else { return 0 }
        owner(userData).didReceiveHeader(
            frame: frame,
            name: UnsafeBufferPointer(start: name, count: nameLength),
            value: UnsafeBufferPointer(start: value, count: valueLength))
        return 0
    }

    static let dataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        owner(userData).didReceiveData(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
        return 0
    }

    static let streamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        owner(userData).streamDidClose(streamID: streamID, errorCode: errorCode)
        return 0
    }

    static let frameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        owner(userData).didReceiveFrame(frame)
        return 0
    }

    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return owner(userData).readRequestBody(streamID: streamID, into: buffer, capacity: length, flags: flags)
    }

    /// A client session reporting to `connection`, or nil without memory.
    static func makeClientSession(for connection: HTTP2Connection) -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, header)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, dataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, streamClose)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, frameReceived)
        var options: OpaquePointer?
        guard nghttp2_option_new(&options) == 0, let options else { return nil }
        defer { nghttp2_option_del(options) }
        // RFC 9113 §6.5.2: until the server's SETTINGS arrive, its stream limit is unknown and streams
        // above it would be refused; assume the smallest useful limit instead of nghttp2's 100.
        nghttp2_option_set_peer_max_concurrent_streams(options, streamsBeforeServerSettings)
        var session: OpaquePointer?
        let context = Unmanaged.passUnretained(connection).toOpaque()
        guard nghttp2_session_client_new2(&session, callbacks, context, options) == 0 else { return nil }
        return session
    }
}
