import CEvent
import Glibc
import IPDirectCore

/// An accepted client connection that has sent nothing yet: its socket, who it is, the settings it was
/// accepted under and one libevent read event, but no buffers and no session. Browsers open such
/// connections ahead of use, so there can be many. Its first bytes (or FIN) make it a session
/// (`Worker.wake(_:)`); its head deadline or a stop closes it.
final class SilentClient: ConnectionSetMember {
    /// Unchecked, as `ClientSession.worker`: the worker closes its silent clients before it goes.
    unowned(unsafe) let worker: Worker
    let fd: Int32
    let id: UInt64
    let peerAddress: SocketAddress?
    /// Taken at the accept: a reload while the connection is silent does not change what it gets.
    let configuration: ConnectionSettings
    let wait: FirstBytesWait
    var connectionSetSlot = -1
    /// Persistent, so that it stays in epoll's interest when it fires: the session's bufferevent then
    /// watches the same descriptor before this event goes, and the handover costs no epoll_ctl.
    private var readiness: OpaquePointer?

    private static let fired: event_callback_fn = { _, what, context in
        Unmanaged<SilentClient>.fromOpaque(context!).takeUnretainedValue().didFire(what)
    }

    init(worker: Worker, fd: Int32, id: UInt64, peerAddress: SocketAddress?, configuration: ConnectionSettings, now: Int64) {
        self.worker = worker
        self.fd = fd
        self.id = id
        self.peerAddress = peerAddress
        self.configuration = configuration
        wait = FirstBytesWait(rules: configuration.rules, acceptedAt: now)
    }

    deinit {
        if let readiness { event_free(readiness) }
    }

    /// Watches the socket for its first bytes until the head deadline; false when it cannot be watched.
    func startWatching() -> Bool {
        guard let event = worker.spareEvents.event(fd: fd, events: Int16(EV_READ | EV_PERSIST), callback: SilentClient.fired,
                                                   context: Unmanaged.passUnretained(self).toOpaque()) else { return false }
        readiness = event
        var delay = timeval(millis: FirstBytesWait.waitMillis(configuration.rules))
        guard event_add(event, &delay) == 0 else {
            stopWatching()
            return false
        }
        return true
    }

    /// No more callbacks; the socket stays open for whoever takes it.
    func stopWatching() {
        guard let readiness else { return }
        self.readiness = nil
        worker.spareEvents.keep(readiness)
    }

    /// The daemon is stopping.
    func drain() {
        perform(wait.drainRequested())
    }

    private func didFire(_ what: Int16) {
        // Bytes that arrive as the deadline falls due are read, as a session's reader would.
        if what & Int16(EV_READ) != 0 { return worker.wake(self) }
        perform(wait.deadlinePassed(now: MonotonicClock.nowMicros()))
    }

    private func perform(_ decision: FirstBytesWait.Decision) {
        switch decision {
        case .wait(let millis):
            var delay = timeval(millis: millis)
            if let readiness { event_add(readiness, &delay) }
        case .close(let timedOut):
            if let timedOut {
                Logger.debug("session=\(id) client=\(peerAddress?.description ?? "-") state=\(SessionPhase.readingHead) event=\(timedOut)")
            }
            close()
        }
    }

    /// Closes the socket; the worker counts one connection fewer.
    func close() {
        stopWatching()
        Glibc.close(fd)
        worker.silentClientEnded(self)
    }
}
