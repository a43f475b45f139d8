import CEvent
import Glibc

/// Reads a plain socket into its bufferevent's input in one system call per readiness. libevent 2.1 asks
/// the kernel with FIONREAD how much is waiting before every read, a second system call per read; this
/// reader reserves room for up to `readLimit` bytes and reads once. Everything else follows libevent's own
/// socket reader (bufferevent_sock.c): a timeout, EOF or error disables reading and reaches the owner's
/// event callback, and read bytes reach its read callback. Reading pauses at a read high watermark through
/// `BufferedSocket.setWatermarks`: the reader is given the socket's read limit (`ipd_read_limit`) and checks it
/// after each read, which suspends the read event at the mark, so a read here may pass the mark by one read.
enum PlainSocketReader {
    /// The most one read takes: libevent's own cap (EVBUFFER_MAX_READ, 4096) less the header of the chain
    /// the bytes land in, so a chain made for one read is a 4 KiB allocation rather than 8 KiB.
    static var readLimit: Int { 4096 - 64 }
    /// What a compact read lands in the input directly: libevent's smallest chain (1 KiB) less its header.
    static var compactReservation: Int { 1024 - 64 }

    /// Where a read's bytes land.
    enum Sizing {
        /// Room for the whole read is reserved in the input: for a socket whose bytes are mostly bodies.
        case bulk
        /// At most a small chain is reserved, and bytes past it come through the thread's overflow buffer: for a
        /// socket that accepted a client, whose first read is a head that may wait half-sent for a long time
        /// and should then hold 1 KiB, not 4.
        case compact
    }

    /// Installs the reader on a plain bufferevent; again whenever libevent has set its descriptor. False when
    /// the bufferevent is not laid out as libevent 2.1's: it then keeps libevent's reader.
    static func install(on bufferevent: OpaquePointer, sizing: Sizing, limit: UnsafeMutablePointer<ipd_read_limit>) -> Bool {
        ipd_bufferevent_set_reader(bufferevent, routine(sizing), limit) != 0
    }

    /// The read routine `install` points the read event at.
    static func routine(_ sizing: Sizing) -> event_callback_fn { sizing == .bulk ? bulkRoutine : compactRoutine }

    // The read event's argument is the socket's read limit, which names the bufferevent.
    private static let bulkRoutine: event_callback_fn = { fd, what, context in
        PlainSocketReader.read(context!.assumingMemoryBound(to: ipd_read_limit.self), fd: fd, what: what, sizing: .bulk)
    }

    private static let compactRoutine: event_callback_fn = { fd, what, context in
        PlainSocketReader.read(context!.assumingMemoryBound(to: ipd_read_limit.self), fd: fd, what: what, sizing: .compact)
    }

    /// One read now, as when the read event fires: for a socket already known readable.
    static func readReady(_ limit: UnsafeMutablePointer<ipd_read_limit>, fd: Int32, sizing: Sizing) {
        read(limit, fd: fd, what: Int16(EV_READ), sizing: sizing)
    }

    /// Bytes read from the descriptor elsewhere, added to the input with the read callback following, as
    /// after a read here; `limit` is the read limit ipd's reader checks, when it reads this socket.
    static func deliver(_ bytes: UnsafeRawBufferPointer, to bufferevent: OpaquePointer,
                        limit: UnsafeMutablePointer<ipd_read_limit>?) {
        let input = bufferevent_get_input(bufferevent)!
        evbuffer_unfreeze(input, 0)
        evbuffer_add(input, bytes.baseAddress, bytes.count)
        evbuffer_freeze(input, 0)
        if let limit { ipd_read_limit_after_read(limit) }
        bufferevent_trigger(bufferevent, Int16(EV_READ), 0)
    }

    private static func read(_ limit: UnsafeMutablePointer<ipd_read_limit>, fd: Int32, what: Int16, sizing: Sizing) {
        let bufferevent = limit.pointee.bufferevent!
        // EV_TIMEOUT together with EV_READ means bytes arrived as the timeout fell due: read them.
        if what == Int16(EV_TIMEOUT) {
            fail(bufferevent, Int16(BEV_EVENT_READING | BEV_EVENT_TIMEOUT))
            return
        }
        let input = bufferevent_get_input(bufferevent)!
        let most = min(readLimit, bufferevent_get_max_single_read(bufferevent))
        let received = receive(into: input, from: fd, limit: most,
                               reserving: sizing == .bulk ? most : compactReservation)
        if received > 0 {
            ipd_read_limit_after_read(limit)
            bufferevent_trigger(bufferevent, Int16(EV_READ), 0)
        } else if received == 0 {
            fail(bufferevent, Int16(BEV_EVENT_READING | BEV_EVENT_EOF))
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNREFUSED {
            // A refused connect is reported by the connect's write event, as libevent does.
            fail(bufferevent, Int16(BEV_EVENT_READING | BEV_EVENT_ERROR))
        }
    }

    /// One readv(2) of up to `limit` bytes, into at most `reserving` bytes reserved at the end of `input` and,
    /// past them, the thread's overflow buffer (`ipd_read_overflow`), whose bytes are then added to `input`; returns the readv's result
    /// (errno set when negative).
    @inline(__always)
    private static func receive(into input: OpaquePointer, from fd: Int32, limit: Int, reserving: Int) -> Int {
        // The input's end is frozen outside reads, so nothing but the reader appends to it.
        evbuffer_unfreeze(input, 0)
        defer { evbuffer_freeze(input, 0) }
        let reserved = min(limit, reserving)
        guard reserved < limit else {
            return receive(into: input, from: fd, limit: limit, reserved: reserved, overflow: UnsafeMutableRawBufferPointer(start: nil, count: 0))
        }
        let overflow = UnsafeMutableRawBufferPointer(start: ipd_read_overflow(), count: Int(IPD_READ_OVERFLOW_BYTES))
        return receive(into: input, from: fd, limit: limit, reserved: reserved, overflow: overflow)
    }

    @inline(__always)
    private static func receive(into input: OpaquePointer, from fd: Int32, limit: Int, reserved: Int,
                                overflow: UnsafeMutableRawBufferPointer) -> Int {
        // libevent's evbuffer_iovec is struct iovec itself here, so the reserved space goes to readv as it is.
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: 3) { space in
            var count = Int(evbuffer_reserve_space(input, reserved, space.baseAddress, 2))
            guard count > 0 else {
                errno = ENOMEM
                return -1
            }
            // The reservation may be larger than asked; the read must not be (fairness between connections).
            space[0].iov_len = min(space[0].iov_len, reserved)
            if count == 2 {
                space[1].iov_len = min(space[1].iov_len, reserved - space[0].iov_len)
                if space[1].iov_len == 0 { count = 1 }
            }
            let inInput = count == 2 ? space[0].iov_len + space[1].iov_len : space[0].iov_len
            let overflowing = limit > inInput && overflow.count > 0
            if overflowing {
                space[count] = iovec(iov_base: overflow.baseAddress, iov_len: min(limit - inInput, overflow.count))
            }
            let received = readv(fd, space.baseAddress, Int32(overflowing ? count + 1 : count))
            guard received > 0 else { return received }
            let first = min(space[0].iov_len, received)
            space[0].iov_len = first
            let second = count == 2 ? min(space[1].iov_len, received - first) : 0
            if count == 2 { space[1].iov_len = second }
            evbuffer_commit_space(input, space.baseAddress, Int32(second > 0 ? 2 : 1))
            if received > inInput { evbuffer_add(input, overflow.baseAddress, received - inInput) }
            return received
        }
    }

    /// Reading stops and the owner hears why, as from libevent's reader. The reference held meanwhile lets
    /// the owner free the socket from its callback.
    private static func fail(_ bufferevent: OpaquePointer, _ events: Int16) {
        bufferevent_incref(bufferevent)
        bufferevent_disable(bufferevent, Int16(EV_READ))
        var eventCallback: bufferevent_event_cb?
        var context: UnsafeMutableRawPointer?
        bufferevent_getcb(bufferevent, nil, nil, &eventCallback, &context)
        eventCallback?(bufferevent, events, context)
        bufferevent_decref(bufferevent)
    }
}
