/// The queries of one DNS-over-TLS connection to one server address (RFC 7858 §3.3, RFC 7766 §6.2.1.1):
/// up to `maximumInFlight` sent at once, each under a message ID unique on the connection, replies
/// taken in any order but only when both the ID and the question match. Events in, actions out; the
/// connection that owns it performs the actions, and time comes in as `now` (milliseconds).
///
/// `Ticket` names a query for the owner; `Question` is what a reply must echo (name, type, class).
public struct DoTPipeline<Ticket: Hashable, Question: Equatable> {
    public struct Limits: Sendable {
        /// Queries sent and unanswered at once; more wait for a reply to free a slot.
        public var maximumInFlight = 64
        /// A connection with nothing in flight for this long is closed (unbound's own default is 30 s;
        /// closing first spares the server the work and us a write into a connection it has closed).
        public var idleTimeoutMillis: Int64 = 30_000

        public init(maximumInFlight: Int = 64, idleTimeoutMillis: Int64 = 30_000) {
            self.maximumInFlight = maximumInFlight
            self.idleTimeoutMillis = idleTimeoutMillis
        }
    }

    public enum State: Equatable, CustomStringConvertible {
        /// No connection; the next query opens one. Reached at start, after an idle close, after the
        /// server closed a connection with nothing in flight, and after a failed connect.
        case closed
        /// A connect (TCP and TLS) is under way; queries wait for `connected` or `connectFailed`.
        case connecting
        /// The connection carries queries; goes to `closed` on idle or loss, or `connecting` to resend.
        case open

        public var description: String {
            switch self {
            case .closed: return "closed"
            case .connecting: return "connecting"
            case .open: return "open"
            }
        }
    }

    /// Why a reply was dropped rather than delivered.
    public enum Mismatch: Equatable, CustomStringConvertible {
        /// No query in flight has this ID (answered already, timed out, or never asked).
        case unknownID(UInt16)
        /// The ID is in flight, but the reply is for another question: a confused or hostile server.
        case otherQuestion(id: UInt16, asked: Question)

        public var description: String {
            switch self {
            case .unknownID(let id): return "no query in flight has id \(id)"
            case .otherQuestion(let id, let asked): return "id \(id) was asked for \(asked)"
            }
        }
    }

    public enum Action: Equatable {
        /// Open a connection to the server.
        case connect
        /// Write the query of `ticket` under message ID `id`.
        case send(Ticket, id: UInt16)
        /// The reply just received answers `ticket`.
        case deliver(Ticket)
        /// The reply just received answers nothing: drop it and say why.
        case drop(Mismatch)
        /// `ticket` cannot be answered on this server (connect failed, or the connection was lost
        /// with the query already resent once).
        case fail(Ticket)
        /// Close the connection: it has been idle too long.
        case close
    }

    private struct Query {
        let ticket: Ticket
        let question: Question
        /// Sent on a connection that was then lost; a second loss fails it.
        var wasResent = false
    }

    public private(set) var state = State.closed
    private let limits: Limits
    private let randomID: () -> UInt16
    /// Queries holding an ID, sent (or to be sent once connected).
    private var inFlight: [UInt16: Query] = [:]
    /// The order IDs were given out, so a resend keeps the order queries were asked in.
    private var sendOrder: [UInt16] = []
    /// Queries waiting for a slot, oldest first.
    private var waiting: [Query] = []
    private var lastActivity: Int64 = 0
    /// Connects tried again after a failed reconnect, before the resent queries fail.
    static var reconnectsAfterLoss: Int { 2 }
    private var reconnectsLeft = DoTPipeline.reconnectsAfterLoss

    /// `randomID` draws message IDs; RFC 5452 §9.2 wants them unpredictable even over TLS, where they
    /// are all that ties a reply to a query besides the question.
    public init(limits: Limits = Limits(), randomID: @escaping () -> UInt16 = { UInt16.random(in: .min ... .max) }) {
        self.limits = limits
        self.randomID = randomID
    }

    /// Queries sent and not yet answered.
    public var inFlightCount: Int { inFlight.count }
    /// Queries waiting for a free slot or a connection.
    public var waitingCount: Int { waiting.count }

    /// When the open connection is to be closed for idleness, or nil while it carries queries or is not open.
    public var idleDeadline: Int64? {
        guard state == .open, inFlight.isEmpty, waiting.isEmpty else { return nil }
        return lastActivity + limits.idleTimeoutMillis
    }

    /// A new query for `question`, named `ticket` in the actions that concern it.
    public mutating func submit(_ ticket: Ticket, question: Question, now: Int64) -> [Action] {
        waiting.append(Query(ticket: ticket, question: question))
        lastActivity = now
        return pump()
    }

    /// The connect finished: everything holding an ID goes out, the original queries first.
    public mutating func connected(now: Int64) -> [Action] {
        guard state == .connecting else { return [] }
        state = .open
        reconnectsLeft = Self.reconnectsAfterLoss
        lastActivity = now
        return sendOrder.map { .send(inFlight[$0]!.ticket, id: $0) } + pump()
    }

    /// The connect failed: every query of this server fails, so the provider tries the next address. A
    /// reconnect after a lost connection is tried again a few times first: a server that restarts (two
    /// processes on one port for a moment, the old one's queue reset as it exits) can refuse or reset the
    /// first connects, and the queries it lost deserve their one resend.
    public mutating func connectFailed() -> [Action] {
        guard state == .connecting else { return [] }
        if reconnectsLeft > 0, inFlight.values.contains(where: \.wasResent) {
            reconnectsLeft -= 1
            return [.connect]
        }
        state = .closed
        let failed = sendOrder.map { inFlight[$0]!.ticket } + waiting.map(\.ticket)
        forgetAll()
        return failed.map { .fail($0) }
    }

    /// A reply arrived with message ID `id` and `question`.
    public mutating func received(id: UInt16, question: Question, now: Int64) -> [Action] {
        guard let query = inFlight[id] else { return [.drop(.unknownID(id))] }
        // RFC 7766 §7: an ID alone is not enough once many queries share a stream; the question
        // must match too, or an answer for one name could be taken for another.
        guard query.question == question else { return [.drop(.otherQuestion(id: id, asked: query.question))] }
        release(id)
        lastActivity = now
        return [.deliver(query.ticket)] + pump()
    }

    /// The owner gave up on `ticket` (its deadline passed): its slot is free, a late reply is dropped.
    public mutating func cancel(_ ticket: Ticket, now: Int64) -> [Action] {
        if let id = inFlight.first(where: { $0.value.ticket == ticket })?.key {
            release(id)
        } else {
            waiting.removeAll { $0.ticket == ticket }
        }
        lastActivity = now
        return pump()
    }

    /// The server closed the connection or reset it. Queries in flight for the first time are resent
    /// once on a new connection (RFC 7766 §6.2.1 lets a server close at any time, RFC 7858 §3.4 a
    /// client reconnect); those lost a second time fail.
    public mutating func connectionLost() -> [Action] {
        guard state != .closed else { return [] }
        state = .closed
        var failures: [Action] = []
        for id in sendOrder where inFlight[id]!.wasResent {
            failures.append(.fail(inFlight[id]!.ticket))
            release(id)
        }
        for id in sendOrder { inFlight[id]!.wasResent = true }
        return failures + pump()
    }

    /// Time passed: closes the connection once it has been idle for `idleTimeoutMillis`.
    public mutating func tick(now: Int64) -> [Action] {
        guard let deadline = idleDeadline, now >= deadline else { return [] }
        state = .closed
        return [.close]
    }

    /// Gives queries IDs while there are slots, connecting first when there is no connection.
    private mutating func pump() -> [Action] {
        guard !waiting.isEmpty || !inFlight.isEmpty else { return [] }
        switch state {
        case .closed:
            state = .connecting
            return [.connect] + assignIDs(sending: false)
        case .connecting:
            return assignIDs(sending: false)
        case .open:
            return assignIDs(sending: true)
        }
    }

    private mutating func assignIDs(sending: Bool) -> [Action] {
        var actions: [Action] = []
        while inFlight.count < limits.maximumInFlight, !waiting.isEmpty {
            let query = waiting.removeFirst()
            var id = randomID()
            // At most 64 of 65536 IDs are taken, so this ends after a draw or two.
            while inFlight[id] != nil { id = randomID() }
            inFlight[id] = query
            sendOrder.append(id)
            if sending { actions.append(.send(query.ticket, id: id)) }
        }
        return actions
    }

    private mutating func release(_ id: UInt16) {
        inFlight[id] = nil
        sendOrder.removeAll { $0 == id }
    }

    private mutating func forgetAll() {
        inFlight.removeAll()
        sendOrder.removeAll()
        waiting.removeAll()
    }
}
