import CEvent
import Glibc
import IPDirectCore

/// One loop's kept-alive client connections waiting between requests with no session. Each keeps its
/// socket, a slot in a `ParkingLot` (its machine, settings and identity) and an entry in this loop's own
/// epoll set, and nothing else: one libevent event watches the whole set, one timer stands for every idle
/// deadline. A socket that becomes readable is handed back to the worker to become a session again.
final class ParkedClients {
    /// What a parked connection keeps of its session.
    struct Connection {
        let fd: Int32
        let id: UInt64
        let peerAddress: SocketAddress?
        let configuration: ConnectionSettings
        var session: ParkedSession

        var machine: SessionMachine { SessionMachine(rules: configuration.rules, parked: session) }

        /// Runs an event on the whole machine and returns the actions it queued; what is still parked
        /// afterwards is kept reduced again.
        mutating func withMachine(_ event: (inout SessionMachine) -> Void) -> [SessionAction] {
            var machine = self.machine
            event(&machine)
            if let parked = machine.parked { session = parked }
            return Array(machine.actions)
        }
    }

    typealias Ticket = ParkingLot<Connection>.Ticket

    /// Ready sockets taken from the set per callback; the set stays readable for the rest, which the next
    /// turn of the loop takes.
    static let readyBatch = 64

    unowned let worker: Worker
    /// Held so the loop outlives the two events made on it, whatever order the worker's members go in.
    private let base: EventBase
    private var lot = ParkingLot<Connection>()
    /// Made when the first connection parks, and tried again on the next one after a failure (at the
    /// descriptor limit, say): until it exists, idle connections close instead of parking.
    private var epollSet: Int32 = -1
    private var readiness: OpaquePointer?
    /// The last attempt to make the set failed and said so; the next failure stays quiet.
    private var reportedUnavailable = false
    private var timer: OpaquePointer!
    /// The deadline the timer is armed for; it may have left the lot since, and then the timer finds nothing.
    private var timerDeadline: Int64?
    private let readyTokens = UnsafeMutablePointer<UInt64>.allocate(capacity: ParkedClients.readyBatch)

    private static let becameReadable: event_callback_fn = { _, _, context in
        Unmanaged<ParkedClients>.fromOpaque(context!).takeUnretainedValue().socketsBecameReadable()
    }

    private static let timerFired: event_callback_fn = { _, _, context in
        Unmanaged<ParkedClients>.fromOpaque(context!).takeUnretainedValue().deadlinesPassed()
    }

    init(worker: Worker) {
        self.worker = worker
        base = worker.base
        timer = event_new(base.raw, -1, 0, ParkedClients.timerFired, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        if let readiness { event_free(readiness) }
        event_free(timer)
        if epollSet >= 0 { Glibc.close(epollSet) }
        readyTokens.deallocate()
    }

    var count: Int { lot.count }

    /// Watches `connection` for its next bytes for up to `idleMillis`; false when it cannot be watched
    /// (the caller closes it).
    func park(_ connection: Connection, idleMillis: Int) -> Bool {
        guard watchesSet() else { return false }
        let now = base.clock.nowMicros
        let ticket = lot.park(connection, until: now + Int64(idleMillis) * 1000)
        guard ipd_epoll_watch_readable(epollSet, connection.fd, ticket.packed) == 0 else {
            _ = lot.take(ticket)
            return false
        }
        armTimer(now: now)
        return true
    }

    /// The daemon is stopping: a parked connection is idle, so it closes now. Returns how many closed.
    func drain() -> Int {
        let tickets = lot.tickets
        let now = base.clock.nowMicros
        for ticket in tickets {
            let actions = lot.update(ticket) { $0.withMachine { $0.drainRequested(BufferLevels()) } } ?? []
            perform(actions, for: ticket, now: now)
        }
        armTimer(now: now)
        return tickets.count
    }

    /// The loop is ending: every parked socket closes.
    func closeAll() {
        for ticket in lot.tickets { close(ticket) }
    }

    // MARK: - Events

    private func socketsBecameReadable() {
        let ready = Int(ipd_epoll_ready_tokens(epollSet, readyTokens, Int32(ParkedClients.readyBatch)))
        for index in 0..<max(ready, 0) {
            guard let connection = lot.take(Ticket(packed: readyTokens[index])) else { continue }
            guard ipd_epoll_forget(epollSet, connection.fd) == 0 else {
                // Left in the set, the socket would keep the set readable under its new session's feet.
                Logger.warning("session=\(connection.id) event=parked_wake_failed reason=\"\(String(cString: strerror(errno)))\"")
                closeSocket(of: connection)
                continue
            }
            worker.wake(connection)
        }
    }

    /// Makes the epoll set and the event watching it, unless they exist; false when they cannot be made.
    private func watchesSet() -> Bool {
        if readiness != nil { return true }
        let set = ipd_epoll_create()
        let event = set < 0 ? nil : event_new(base.raw, set, Int16(EV_READ | EV_PERSIST), ParkedClients.becameReadable,
                                               Unmanaged.passUnretained(self).toOpaque())
        guard let event else {
            if !reportedUnavailable {
                Logger.warning("worker=\(worker.index) event=parking_unavailable reason=\"\(String(cString: strerror(errno)))\" "
                               + "effect=\"idle kept-alive connections close\"")
                reportedUnavailable = true
            }
            if set >= 0 { Glibc.close(set) }
            return false
        }
        event_add(event, nil)
        epollSet = set
        readiness = event
        reportedUnavailable = false
        return true
    }

    private func deadlinesPassed() {
        timerDeadline = nil
        let now = base.clock.nowMicros
        while let ticket = lot.firstExpired(now: now) {
            let actions = lot.update(ticket) { $0.withMachine { $0.deadlinePassed(BufferLevels(), now: now) } } ?? []
            perform(actions, for: ticket, now: now)
            // A machine that neither waits longer nor closes would hold this loop here: it has no deadline
            // left, and an idle connection without one closes.
            if lot.firstExpired(now: now) == ticket { close(ticket) }
        }
        armTimer(now: now)
    }

    /// A parked machine asks only to wait longer, to note a timeout, or to close.
    private func perform(_ actions: [SessionAction], for ticket: Ticket, now: Int64) {
        for action in actions {
            switch action {
            case .armTimer(let millis): lot.reschedule(ticket, until: now + Int64(max(millis, 1)) * 1000)
            case .reportTimeout(let reason):
                guard let connection = lot[ticket] else { continue }
                Logger.debug("session=\(connection.id) client=\(connection.peerAddress?.description ?? "-") "
                             + "state=\(SessionPhase.parked) event=\(reason)")
            case .close: close(ticket)
            default: break
            }
        }
    }

    private func close(_ ticket: Ticket) {
        guard let connection = lot.take(ticket) else { return }
        closeSocket(of: connection)
    }

    /// Closing the socket also takes it out of the epoll set: nothing else holds it open.
    private func closeSocket(of connection: Connection) {
        Glibc.close(connection.fd)
        worker.parkedClientEnded()
    }

    /// Arms the timer for the earliest deadline unless it already fires by then; one that fires early
    /// finds nothing expired and is armed again.
    private func armTimer(now: Int64) {
        guard let earliest = lot.earliestDeadline else { return }
        if let armed = timerDeadline, armed <= earliest { return }
        timerDeadline = earliest
        var delay = timeval(millis: Int((max(earliest - now, 0) + 999) / 1000))
        event_add(timer, &delay)
    }
}
