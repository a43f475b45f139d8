import CEvent
import Glibc
import IPDirectCore

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
        let available = ipd_evbuffer_length(source)
        var wanted = min(available, limit ?? available)
        guard wanted > 0 else { return 0 }
        var moved = 0
        if destination.writesAtOnce {
            let written = evbuffer_write_atmost(source, destination.fd, wanted)
            // On EAGAIN or an error the bytes are queued below; libevent's own write then reports the error.
            if written > 0 {
                moved = Int(written)
                wanted -= moved
            }
        }
        return moved + queue(wanted, from: source, to: destination.output)
    }

    /// Like `move`, but first sends `head` (then emptied) in the same write as the bytes, so a response
    /// head and the body bytes that arrived with it leave in one segment and wake the peer once. The bytes
    /// are written where they lie, the head's and the first segments of `source`, in one sendmsg(2).
    static func move(from source: OpaquePointer, to destination: borrowing BufferedSocket, limit: Int? = nil,
                     after head: inout HeadBuffer) -> Int {
        guard !head.isEmpty else { return move(from: source, to: destination, limit: limit) }
        let available = ipd_evbuffer_length(source)
        let wanted = min(available, limit ?? available)
        let output = destination.output
        var written = 0
        if destination.writesAtOnce {
            written = head.withUnsafeBytes { send($0, then: wanted, from: source, to: destination.fd) }
        }
        let headWritten = min(written, head.count)
        if headWritten < head.count {
            head.withUnsafeBytes { _ = evbuffer_add(output, $0.baseAddress! + headWritten, $0.count - headWritten) }
        }
        // Dropped rather than emptied: the machine writes the next head into the storage once nothing else holds it.
        head = HeadBuffer()
        let bodyWritten = written - headWritten
        if bodyWritten > 0 { evbuffer_drain(source, bodyWritten) }
        return bodyWritten + queue(wanted - bodyWritten, from: source, to: output)
    }

    /// Queues the first `count` bytes of `source` on `output` without copying them; returns how many moved.
    private static func queue(_ count: Int, from source: OpaquePointer, to output: OpaquePointer) -> Int {
        guard count > 0 else { return 0 }
        if count == ipd_evbuffer_length(source) {
            evbuffer_add_buffer(output, source)
            return count
        }
        return Int(max(0, evbuffer_remove_buffer(source, output, count)))
    }

    /// Segments of `source` sent in the same call as a head: a response body that arrived with its head is
    /// one or two.
    private static let maxBodySegments = 4

    /// One sendmsg(2) of `head` and up to `count` bytes from the front of `source` (which stay there);
    /// returns how many bytes the socket took, 0 when it took none or failed.
    private static func send(_ head: UnsafeRawBufferPointer, then count: Int, from source: OpaquePointer, to fd: Int32) -> Int {
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: maxBodySegments + 1) { vectors in
            vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count)
            var used = 1
            if count > 0 {
                let needed = Int(evbuffer_peek(source, count, nil, vectors.baseAddress! + 1, Int32(maxBodySegments)))
                var left = count
                for index in 1...min(needed, maxBodySegments) {
                    // The last segment peeked may hold more than is to be sent.
                    vectors[index].iov_len = min(vectors[index].iov_len, left)
                    left -= vectors[index].iov_len
                    used += 1
                }
            }
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = used
            return max(0, sendmsg(fd, &message, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)))
        }
    }

    /// Sends `bytes` (a head or an answer the proxy built) to the socket `destination`, writing at once
    /// when nothing is queued ahead of them, for the same reason as `move`.
    static func send(_ bytes: UnsafeRawBufferPointer, to destination: borrowing BufferedSocket) {
        guard let base = bytes.baseAddress else { return }
        var sent = 0
        if destination.writesAtOnce {
            let written = Glibc.send(destination.fd, base, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            if written > 0 { sent = written }
        }
        if sent < bytes.count {
            evbuffer_add(destination.output, base + sent, bytes.count - sent)
        }
    }
}
