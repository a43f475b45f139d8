import CEvent
import Glibc
import IPDirectCore

/// A kept-alive client waiting for its next request holds no bufferevent (about 1 KiB with its two
/// buffers and events): the session's timer event is pointed at the socket instead, so one event both
/// watches for the next bytes and keeps the idle deadline, and the bufferevent is made again when bytes
/// come (nginx frees its request buffers the same way between requests).
extension ClientSession {
    private static let wakeupFired: event_callback_fn = { _, what, context in
        let session = Unmanaged<ClientSession>.fromOpaque(context!).takeUnretainedValue()
        if what & Int16(EV_READ) != 0 {
            session.clientBecameReadable()
        } else {
            session.perform(session.machine.deadlinePassed(session.levels, now: MonotonicClock.nowMicros()))
        }
    }

    /// The session's timer: an event without a socket until the session parks.
    func makeWakeup() -> OpaquePointer {
        // The callback argument must be self, which exists only once the event is stored: allocate, then assign.
        let event = event_new(worker.base.raw, -1, 0, ClientSession.wakeupFired, nil)!
        pointWakeup(event, at: -1)
        return event
    }

    /// Re-targets the (not pending) wakeup event: `fd` -1 makes it a plain timer, the client's socket a
    /// one-shot read watch that also times out.
    private func pointWakeup(_ event: OpaquePointer, at fd: Int32) {
        event_assign(event, worker.base.raw, fd, fd < 0 ? 0 : Int16(EV_READ), ClientSession.wakeupFired,
                     Unmanaged.passUnretained(self).toOpaque())
    }

    /// Frees the empty bufferevent, keeping the socket, and watches the socket with the wakeup event (the
    /// machine re-arms its timeout next).
    func park() {
        guard let bev = clientBuffer else { return }
        bufferevent_setcb(bev, nil, nil, nil, nil)
        // With no fd left, freeing the bufferevent no longer closes the socket.
        bufferevent_setfd(bev, -1)
        bufferevent_free(bev)
        clientBuffer = nil
        event_del(wakeup)
        pointWakeup(wakeup, at: clientFD)
        isParked = true
        worker.metrics.update { $0.connectionsParked += 1 }
    }

    /// Bytes or a FIN arrived on the parked socket: a new bufferevent takes what is there at once (no
    /// extra loop turn), and the machine hears of it.
    func clientBecameReadable() {
        unpark()
        guard let bev = bufferevent_socket_new(worker.base.raw, clientFD, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return close()
        }
        attachClient(bev)
        // A socket bufferevent keeps its input frozen against writers other than its own read callback.
        evbuffer_unfreeze(clientInput, 0)
        let received = evbuffer_read(clientInput, clientFD, -1)
        let readError = errno
        evbuffer_freeze(clientInput, 0)
        if received == 0 || (received < 0 && readError != EAGAIN && readError != EWOULDBLOCK) {
            return didReceive(bev, events: Int16(BEV_EVENT_READING) | Int16(received == 0 ? BEV_EVENT_EOF : BEV_EVENT_ERROR))
        }
        perform(machine.clientReadable(now: MonotonicClock.nowMicros()))
    }

    /// Makes the wakeup event a plain timer again; the session no longer counts as parked.
    func unpark() {
        guard isParked else { return }
        isParked = false
        event_del(wakeup)
        pointWakeup(wakeup, at: -1)
        worker.metrics.update { $0.connectionsParked -= 1 }
    }
}
