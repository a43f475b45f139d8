import CEvent
import Glibc

/// Watches one listening socket on a worker's loop and takes one connection each time it is readable.
/// The watch is level-triggered, so a queue of connections brings the loop straight back; libevent's
/// evconnlistener instead calls accept() until it fails with EAGAIN, a wasted system call for every
/// connection of a listener that is not flooded.
final class ConnectionAcceptor {
    private var event: OpaquePointer!
    private let listenFD: Int32
    /// Receives each accepted socket (non-blocking, close-on-exec) and its peer's address.
    private let accepted: (Int32, UnsafeMutablePointer<sockaddr>) -> Void
    /// Runs when accept() failed for a reason that will not pass by itself (no descriptors, no memory).
    private let failed: () -> Void
    private var closed = false

    /// Borrowed, not retained, for the call: the worker lets go of its acceptors only in `stopAccepting`, from
    /// its mailbox, never while one of them is accepting.
    private static let readable: event_callback_fn = { _, _, context in
        Unmanaged<ConnectionAcceptor>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.acceptOne() }
    }

    init?(base: EventBase, listenFD: Int32, accepted: @escaping (Int32, UnsafeMutablePointer<sockaddr>) -> Void,
          failed: @escaping () -> Void) {
        self.listenFD = listenFD
        self.accepted = accepted
        self.failed = failed
        let events = Int16(EV_READ | EV_PERSIST)
        guard let event = event_new(base.raw, listenFD, events, ConnectionAcceptor.readable,
                                    Unmanaged.passUnretained(self).toOpaque()) else { return nil }
        self.event = event
        event_add(event, nil)
    }

    deinit { close() }

    func enable() {
        if !closed { event_add(event, nil) }
    }

    func disable() {
        if !closed { event_del(event) }
    }

    /// Stops watching; the listening socket itself belongs to the server. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        // Nil only when init failed to make it.
        if let event { event_free(event) }
    }

    private func acceptOne() {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &address) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer in
                let fd = ipd_accept_nonblocking(listenFD, peer, &length)
                if fd >= 0 { return accepted(fd, peer) }
                switch errno {
                // Nothing queued (another worker took it), or a connection that died in the queue.
                case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: return
                default: failed()
                }
            }
        }
    }
}
