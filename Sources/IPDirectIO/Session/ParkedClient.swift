import CEvent
import Glibc
import IPDirectCore

/// A kept-alive client connection parked between requests with nothing buffered either way: all that is
/// left of its session is this record (its machine, settings and socket) and one event that both watches
/// the socket and keeps the idle deadline. A session with its bufferevent holds well over a KiB; this about
/// a third of one. Bytes or a FIN make it a session again (`Worker.wake`); the idle deadline and draining
/// are answered here, by the machine.
final class ParkedClient {
    unowned let worker: Worker
    let configuration: ConnectionSettings
    let id: UInt64
    let peerAddress: SocketAddress?
    private(set) var machine: SessionMachine
    let fd: Int32
    private var event: OpaquePointer!
    private var watching = true

    private static let fired: event_callback_fn = { _, what, context in
        let parked = Unmanaged<ParkedClient>.fromOpaque(context!).takeUnretainedValue()
        if what & Int16(EV_READ) != 0 {
            parked.worker.wake(parked)
        } else {
            parked.perform(parked.machine.deadlinePassed(BufferLevels(), now: MonotonicClock.nowMicros()))
        }
    }

    init(_ session: ClientSession, fd: Int32, idleMillis: Int) {
        worker = session.worker
        configuration = session.configuration
        id = session.id
        peerAddress = session.peerAddress
        machine = session.machine
        self.fd = fd
        event = event_new(worker.base.raw, fd, Int16(EV_READ), ParkedClient.fired, Unmanaged.passUnretained(self).toOpaque())
        arm(millis: idleMillis)
    }

    deinit { event_free(event) }

    /// The daemon is stopping: a parked connection is idle, so it closes now.
    func drain() {
        perform(machine.drainRequested(BufferLevels()))
    }

    /// Stops watching: the socket now belongs to a new session.
    func handOver() {
        watching = false
        event_del(event)
    }

    /// Closes the socket; idempotent.
    func close() {
        guard watching else { return }
        handOver()
        Glibc.close(fd)
        worker.parkedClientEnded(self)
    }

    /// A parked machine asks only to wait longer, to note a timeout, or to close.
    private func perform(_ actions: [SessionAction]) {
        for action in actions {
            switch action {
            case .armTimer(let millis): arm(millis: millis)
            case .reportTimeout(let reason):
                Logger.debug("session=\(id) client=\(peerAddress?.description ?? "-") state=\(machine.phase) event=\(reason)")
            case .close: close()
            default: break
            }
        }
    }

    private func arm(millis: Int) {
        var delay = timeval(millis: millis)
        event_add(event, &delay)
    }
}
