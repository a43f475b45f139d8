import CEvent
import Glibc

/// Reads a plain socket into its bufferevent's input in one system call per readiness. libevent 2.1 asks
/// the kernel with FIONREAD how much is waiting before every read, a second system call per read; this
/// reader reserves room for up to `readLimit` bytes and reads once. Everything else follows libevent's own
/// socket reader (bufferevent_sock.c): a timeout, EOF or error disables reading and reaches the owner's
/// event callback, and read bytes reach its read callback subject to the read watermarks.
enum PlainSocketReader {
    /// The most one read takes: libevent's own cap (EVBUFFER_MAX_READ, 4096) less the header of the chain
    /// the bytes land in, so a chain made for one read is a 4 KiB allocation rather than 8 KiB.
    static var readLimit: Int { 4096 - 64 }

    /// Installs the reader on a plain bufferevent; again whenever libevent has set its descriptor. False when
    /// the bufferevent is not laid out as libevent 2.1's: it then keeps libevent's reader.
    @discardableResult
    static func install(on bufferevent: OpaquePointer) -> Bool {
        ipd_bufferevent_set_reader(bufferevent, routine) != 0
    }

    private static let routine: event_callback_fn = { fd, what, context in
        PlainSocketReader.read(OpaquePointer(context!), fd: fd, what: what)
    }

    /// One read now, as when the read event fires: for a socket already known readable.
    static func readReady(_ bufferevent: OpaquePointer, fd: Int32) {
        read(bufferevent, fd: fd, what: Int16(EV_READ))
    }

    private static func read(_ bufferevent: OpaquePointer, fd: Int32, what: Int16) {
        // EV_TIMEOUT together with EV_READ means bytes arrived as the timeout fell due: read them.
        if what == Int16(EV_TIMEOUT) {
            fail(bufferevent, Int16(BEV_EVENT_READING | BEV_EVENT_TIMEOUT))
            return
        }
        let input = bufferevent_get_input(bufferevent)!
        guard let limit = readAllowance(bufferevent, input: input) else { return }
        let received = receive(into: input, from: fd, limit: limit)
        if received > 0 {
            bufferevent_trigger(bufferevent, Int16(EV_READ), 0)
        } else if received == 0 {
            fail(bufferevent, Int16(BEV_EVENT_READING | BEV_EVENT_EOF))
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNREFUSED {
            // A refused connect is reported by the connect's write event, as libevent does.
            fail(bufferevent, Int16(BEV_EVENT_READING | BEV_EVENT_ERROR))
        }
    }

    /// How many bytes this read may take: up to the read high watermark, when one is set. Nil when the
    /// input is already at it (the watermark was lowered): setting it again suspends reading, as libevent does.
    @inline(__always)
    private static func readAllowance(_ bufferevent: OpaquePointer, input: OpaquePointer) -> Int? {
        var limit = min(readLimit, bufferevent_get_max_single_read(bufferevent))
        var low = 0
        var high = 0
        _ = bufferevent_getwatermark(bufferevent, Int16(EV_READ), &low, &high)
        guard high > 0 else { return limit }
        let room = high - evbuffer_get_length(input)
        guard room > 0 else {
            bufferevent_setwatermark(bufferevent, Int16(EV_READ), low, high)
            return nil
        }
        limit = min(limit, room)
        return limit
    }

    /// One readv(2) into space reserved at the end of `input`; returns its result (errno set when negative).
    @inline(__always)
    private static func receive(into input: OpaquePointer, from fd: Int32, limit: Int) -> Int {
        // The input's end is frozen outside reads, so nothing but the reader appends to it.
        evbuffer_unfreeze(input, 0)
        defer { evbuffer_freeze(input, 0) }
        // libevent's evbuffer_iovec is struct iovec itself here, so the reserved space goes to readv as it is.
        return withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { space in
            var count = evbuffer_reserve_space(input, limit, space.baseAddress, 2)
            guard count > 0 else {
                errno = ENOMEM
                return -1
            }
            // The reservation may be larger than asked; the read must not be (watermarks, fairness).
            space[0].iov_len = min(space[0].iov_len, limit)
            if count == 2 {
                space[1].iov_len = min(space[1].iov_len, limit - space[0].iov_len)
                if space[1].iov_len == 0 { count = 1 }
            }
            let received = readv(fd, space.baseAddress, count)
            guard received > 0 else { return received }
            let first = min(space[0].iov_len, received)
            space[0].iov_len = first
            if received > first { space[1].iov_len = received - first }
            evbuffer_commit_space(input, space.baseAddress, received > first ? 2 : 1)
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
