import CEvent
import Glibc

/// Moves bytes from one connection's input buffer to another connection, without copying them into Swift.
enum ByteTransfer {
    /// Moves up to `limit` bytes (all when nil) from `source` to the socket bufferevent `destination`,
    /// and returns how many left `source`.
    ///
    /// When nothing is queued for the destination, the bytes are written to its socket at once and only
    /// what the socket does not take is queued. Queuing everything would make libevent arm EPOLLOUT, wait a
    /// loop turn, write and disarm it again: two epoll_ctl calls and an extra wakeup per read, which
    /// dominated the CPU cost of a bulk transfer.
    static func move(from source: OpaquePointer, to destination: OpaquePointer, limit: Int? = nil) -> Int {
        var none: [UInt8] = []
        return move(from: source, to: destination, limit: limit, after: &none, staging: nil)
    }

    /// Like `move`, but first sends `head` (then emptied) in the same write as the bytes, so a response
    /// head and the body bytes that arrived with it leave in one segment and wake the peer once.
    /// `staging` is an empty scratch evbuffer of the calling loop.
    static func move(from source: OpaquePointer, to destination: OpaquePointer, limit: Int? = nil,
                     after head: inout [UInt8], staging: OpaquePointer?) -> Int {
        let available = evbuffer_get_length(source)
        var wanted = min(available, limit ?? available)
        if !head.isEmpty, let staging {
            head.withUnsafeBytes { _ = evbuffer_add(staging, $0.baseAddress, $0.count) }
            head = []
            let moved = wanted > 0 ? Int(max(0, evbuffer_remove_buffer(source, staging, wanted))) : 0
            let output = bufferevent_get_output(destination)
            if evbuffer_get_length(output) == 0 && writesDirectly(destination) {
                _ = evbuffer_write(staging, bufferevent_getfd(destination))
            }
            evbuffer_add_buffer(output, staging)
            return moved
        }
        guard wanted > 0 else { return 0 }
        var moved = 0
        let output = bufferevent_get_output(destination)
        if evbuffer_get_length(output) == 0 && writesDirectly(destination) {
            let written = evbuffer_write_atmost(source, bufferevent_getfd(destination), wanted)
            // On EAGAIN or an error the bytes are queued below; libevent's own write then reports the error.
            if written > 0 {
                moved = Int(written)
                wanted -= moved
            }
        }
        if wanted > 0 {
            if wanted == evbuffer_get_length(source) {
                evbuffer_add_buffer(output, source)
                moved += wanted
            } else {
                moved += Int(max(0, evbuffer_remove_buffer(source, output, wanted)))
            }
        }
        return moved
    }

    /// Sends `bytes` (a head the proxy built) to the socket bufferevent `destination`, writing at once
    /// when nothing is queued ahead of them, for the same reason as `move`.
    static func send(_ bytes: [UInt8], to destination: OpaquePointer) {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            let output = bufferevent_get_output(destination)
            if evbuffer_get_length(output) == 0 && writesDirectly(destination) {
                let written = Glibc.send(bufferevent_getfd(destination), raw.baseAddress, raw.count,
                                         Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                if written > 0 { sent = written }
            }
            if sent < raw.count {
                evbuffer_add(output, raw.baseAddress! + sent, raw.count - sent)
            }
        }
    }

    /// Only a plain socket may be written behind its bufferevent's back; bytes for a TLS connection
    /// must go through OpenSSL.
    private static func writesDirectly(_ destination: OpaquePointer) -> Bool {
        bufferevent_openssl_get_ssl(destination) == nil
    }
}
