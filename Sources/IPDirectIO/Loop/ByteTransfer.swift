import CEvent
import Glibc

/// Moves bytes from one connection's input buffer to another connection, without copying them into Swift.
enum ByteTransfer {
    /// Moves up to `limit` bytes (all when nil) from `source` to the socket `destination`,
    /// and returns how many left `source`.
    ///
    /// When nothing is queued for the destination (and it is a plain socket: bytes for a TLS connection
    /// must go through OpenSSL), the bytes are written to its socket at once and only
    /// what the socket does not take is queued. Queuing everything would make libevent arm EPOLLOUT, wait a
    /// loop turn, write and disarm it again: two epoll_ctl calls and an extra wakeup per read, which
    /// dominated the CPU cost of a bulk transfer.
    static func move(from source: OpaquePointer, to destination: borrowing BufferedSocket, limit: Int? = nil) -> Int {
        var none: [UInt8] = []
        return move(from: source, to: destination, limit: limit, after: &none, staging: nil)
    }

    /// Like `move`, but first sends `head` (then emptied) in the same write as the bytes, so a response
    /// head and the body bytes that arrived with it leave in one segment and wake the peer once.
    /// `staging` is an empty scratch evbuffer of the calling loop.
    static func move(from source: OpaquePointer, to destination: borrowing BufferedSocket, limit: Int? = nil,
                     after head: inout [UInt8], staging: OpaquePointer?) -> Int {
        let available = evbuffer_get_length(source)
        var wanted = min(available, limit ?? available)
        if !head.isEmpty, let staging {
            head.withUnsafeBytes { _ = evbuffer_add(staging, $0.baseAddress, $0.count) }
            head = []
            let moved = wanted > 0 ? Int(max(0, evbuffer_remove_buffer(source, staging, wanted))) : 0
            let output = destination.output
            if evbuffer_get_length(output) == 0 && destination.ssl == nil {
                _ = evbuffer_write(staging, destination.fd)
            }
            evbuffer_add_buffer(output, staging)
            return moved
        }
        guard wanted > 0 else { return 0 }
        var moved = 0
        let output = destination.output
        if evbuffer_get_length(output) == 0 && destination.ssl == nil {
            let written = evbuffer_write_atmost(source, destination.fd, wanted)
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

    /// Sends `bytes` (a head the proxy built) to the socket `destination`, writing at once
    /// when nothing is queued ahead of them, for the same reason as `move`.
    static func send(_ bytes: [UInt8], to destination: borrowing BufferedSocket) {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            let output = destination.output
            if evbuffer_get_length(output) == 0 && destination.ssl == nil {
                let written = Glibc.send(destination.fd, raw.baseAddress, raw.count,
                                         Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                if written > 0 { sent = written }
            }
            if sent < raw.count {
                evbuffer_add(output, raw.baseAddress! + sent, raw.count - sent)
            }
        }
    }
}
