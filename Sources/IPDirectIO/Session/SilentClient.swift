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
    private(set) var fd: Int32
    private(set) var id: UInt64
    private(set) var peerAddress: SocketAddress?
    /// Taken at the accept: a reload while the connection is silent does not change what it gets.
    private(set) var configuration: ConnectionSettings
    private(set) var wait: FirstBytesWait
    var connectionSetSlot = -1
    /// Persistent, so that it stays in epoll's interest when it fires: the session's bufferevent then
    /// watches the same descriptor before this event goes, and the handover costs no epoll_ctl. Made by the
    /// first watch and kept, stopped, for the connections this object waits for later (`SpareConnections`).
    private var readiness: OpaquePointer?
    private var isWatching = false

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

    /// This object, whose connection became a session or closed and which nothing else holds, waits for the
    /// accepted `fd` as a new one made with these arguments would; only its stopped event is kept.
    func reopen(fd: Int32, id: UInt64, peerAddress: SocketAddress?, configuration: ConnectionSettings, now: Int64) {
        self.fd = fd
        self.id = id
        self.peerAddress = peerAddress
        self.configuration = configuration
        wait = FirstBytesWait(rules: configuration.rules, acceptedAt: now)
        connectionSetSlot = -1
    }

    /// Watches the socket for its first bytes until the head deadline; false when it cannot be watched.
    func startWatching() -> Bool {
        let events = Int16(EV_READ | EV_PERSIST)
        let context = Unmanaged.passUnretained(self).toOpaque()
        if let readiness {
            event_assign(readiness, worker.base.raw, fd, events, SilentClient.fired, context)
        } else {
            readiness = event_new(worker.base.raw, fd, events, SilentClient.fired, context)
        }
        guard let readiness else { return false }
        isWatching = true
        var delay = timeval(millis: FirstBytesWait.waitMillis(configuration.rules))
        guard event_add(readiness, &delay) == 0 else {
            stopWatching()
            return false
        }
        return true
    }

    /// No more callbacks; the socket stays open for whoever takes it.
    func stopWatching() {
        guard isWatching, let readiness else { return }
        isWatching = false
        event_del(readiness)
    }

    /// The daemon is stopping.
    func drain() {
        perform(wait.drainRequested())
    }

    private func didFire(_ what: Int16) {
        // Bytes that arrive as the deadline falls due are read, as a session's reader would.
        if what & Int16(EV_READ) != 0 { return worker.wake(self) }
        perform(wait.deadlinePassed(now: worker.clock.nowMicros))
    }

    private func perform(_ decision: FirstBytesWait.Decision) {
        switch decision {
        case .wait(let millis):
            var delay = timeval(millis: millis)
            if isWatching, let readiness { event_add(readiness, &delay) }
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
