import CEvent
import Glibc
import IPDirectCore

/// Races the addresses of one host (RFC 8305 §5, happy eyeballs v2, decided by `ConnectionRace`):
/// the first at once, the next after `attemptDelayMillis` or as soon as one fails, each with its own
/// connect timeout; the first TCP connection to stand wins and the others are closed. Every attempt's
/// outcome goes to `health`, so the next plan knows which addresses answer and how fast.
///
/// With `tls`, the winning connection is then wrapped in TLS for `tls.host` (the name the client
/// asked for, never the IP). The handshake runs within the winner's connect timeout. A failed
/// handshake ends the connect without trying further addresses: a bad certificate or protocol is the
/// server's answer, not a reachability problem another address would solve.
final class Connector {
    /// What the connection to one address waits for.
    fileprivate enum Phase: CustomStringConvertible {
        /// TCP connect in flight; next: handshaking (TLS), done, failed, or abandoned when another wins.
        case connecting
        /// TLS handshake in flight on the winning socket; next: done or a TLS failure.
        case handshaking

        var description: String {
            switch self {
            case .connecting: return "connecting"
            case .handshaking: return "handshaking"
            }
        }
    }

    /// One started attempt: its socket (whose events it receives), its connect timeout, when it began.
    final class Attempt {
        unowned let connector: Connector
        var socket: BufferedSocket
        let index: Int
        let address: SocketAddress
        let startedMicros: Int64
        let timer: Timer
        fileprivate var phase = Phase.connecting
        /// Still connecting when the attempt delay passed: it waited a whole delay without an answer, as the
        /// loop's clock (which times the delay) counts, however much less `startedMicros` says it waited.
        fileprivate var outlastedDelay = false

        fileprivate init(connector: Connector, socket: consuming BufferedSocket, index: Int, address: SocketAddress,
                         startedMicros: Int64, timer: Timer) {
            self.connector = connector
            self.socket = socket
            self.index = index
            self.address = address
            self.startedMicros = startedMicros
            self.timer = timer
        }
    }

    private let base: EventBase
    private let key: UpstreamPoolKey?
    private let hostPort: String
    private let tls: (context: TLSClientContext, host: String)?
    private let addresses: [SocketAddress]
    private let timeoutMillis: Int
    private let health: UpstreamHealth?
    /// The host the connection is for, where failures that concern it alone (its certificate) are kept.
    private let hostKey: UpstreamHostKey?
    private var completion: ((Result<UpstreamConnection, ConnectFailure>) -> Void)?
    private var race: ConnectionRace
    private var running: [Attempt] = []
    private var failures: [ConnectFailure.Attempt] = []
    private let delayTimer: Timer
    private let attemptDelayMicros: Int64
    /// Connection attempts started so far, for the access log.
    var attemptsStarted: Int { race.startedCount }
    /// 1-based position in `addresses` of the address that won, once one has.
    private(set) var winnerRank: Int?

    init(base: EventBase, key: UpstreamPoolKey? = nil, hostPort: String, addresses: [SocketAddress], timeoutMillis: Int,
         attemptDelayMillis: Int = Connector.defaultAttemptDelayMillis, health: UpstreamHealth? = nil,
         hostKey: UpstreamHostKey? = nil, tls: (context: TLSClientContext, host: String)? = nil,
         completion: @escaping (Result<UpstreamConnection, ConnectFailure>) -> Void) {
        self.base = base
        self.key = key
        self.hostPort = hostPort
        self.tls = tls
        self.addresses = addresses
        self.timeoutMillis = timeoutMillis
        self.health = health
        self.hostKey = hostKey
        self.completion = completion
        race = ConnectionRace(addressCount: addresses.count, delayMillis: attemptDelayMillis)
        attemptDelayMicros = Int64(attemptDelayMillis) * 1000
        delayTimer = Timer(base: base)
        delayTimer.action = { [unowned self] in
            for attempt in running where attempt.phase == .connecting { attempt.outlastedDelay = true }
            perform(race.delayElapsed())
        }
    }

    /// RFC 8305 §8's recommended Connection Attempt Delay.
    static let defaultAttemptDelayMillis = 250

    deinit { cancel() }

    func start() { perform(race.begin()) }

    /// Stops connecting; the completion is never called afterwards.
    func cancel() {
        completion = nil
        delayTimer.cancel()
        for attempt in running { discard(attempt) }
        running.removeAll()
    }

    private func perform(_ actions: [ConnectionRace.Action]) {
        for action in actions {
            // A nested action may have finished the connect (and let the owner release it).
            guard completion != nil else { return }
            switch action {
            case .start(let index): open(index)
            case .armDelay(let millis): delayTimer.schedule(afterMillis: millis)
            case .abandon(let index):
                guard let attempt = take(index) else { continue }
                // The delay's timer runs from the loop's time at the start of its turn, which may be behind the
                // clock read when the attempt began: an attempt the delay passed over waited a whole delay.
                let measured = MonotonicClock.nowMicros() - attempt.startedMicros
                let waited = attempt.outlastedDelay ? max(measured, attemptDelayMicros) : measured
                health?.failed(attempt.address, outcome: .abandoned,
                               reason: "no answer within \(waited / 1000) ms while another address connected", elapsedMicros: waited)
                discard(attempt)
            case .won(let index):
                delayTimer.cancel()
                guard let winner = running.first(where: { $0.index == index }) else { continue }
                winnerRank = index + 1
                health?.recordWin(position: index + 1, address: winner.address, host: hostKey)
                won(winner)
            case .lost:
                delayTimer.cancel()
                finish(.failure(ConnectFailure(hostPort: hostPort, cause: .attempts(failures))))
            }
        }
    }

    private func open(_ index: Int) {
        let address = addresses[index]
        guard let socket = BufferedSocket(socket: -1, base: base) else {
            failures.append(ConnectFailure.Attempt(address: address, outcome: .noSocket))
            return perform(race.attemptFailed(index))
        }
        let attempt = Attempt(connector: self, socket: socket, index: index, address: address,
                              startedMicros: MonotonicClock.nowMicros(), timer: Timer(base: base))
        attempt.timer.action = { [unowned self, unowned attempt] in timerFired(attempt) }
        running.append(attempt)
        attempt.socket.handOver(to: attempt, calling: BufferEventCallbacks.connectAttempt)
        if !attempt.socket.connect(to: address) {
            // Immediate failures (e.g. ENETUNREACH for an IPv6 address on an IPv4-only host).
            return failed(attempt, code: errno)
        }
        attempt.timer.schedule(afterMillis: timeoutMillis)
    }

    func attempt(_ attempt: Attempt, didReceive events: Int16) {
        let code = errno
        guard running.contains(where: { $0 === attempt }) else { return }
        let connected = events & Int16(BEV_EVENT_CONNECTED) != 0
        switch attempt.phase {
        case .connecting where connected:
            attempt.socket.dropCallbacks()
            health?.connected(attempt.address, micros: MonotonicClock.nowMicros() - attempt.startedMicros, usable: tls == nil)
            perform(race.attemptConnected(attempt.index))
        case .connecting:
            failed(attempt, code: Connector.connectError(attempt.socket.fd, reported: code))
        case .handshaking:
            attempt.timer.cancel()
            handshakeEnded(attempt, connected: connected, events: events, errnoCode: code)
        }
    }

    private func failed(_ attempt: Attempt, code: Int32) {
        _ = take(attempt.index)
        let outcome: UpstreamAttemptOutcome = code == ECONNREFUSED ? .refused : .error
        let failure = ConnectFailure.Attempt.Outcome(errno: code)
        failures.append(ConnectFailure.Attempt(address: attempt.address, outcome: failure))
        health?.failed(attempt.address, outcome: outcome, reason: failure.description,
                       elapsedMicros: MonotonicClock.nowMicros() - attempt.startedMicros)
        discard(attempt)
        perform(race.attemptFailed(attempt.index))
    }

    private func won(_ winner: Attempt) {
        var one: Int32 = 1
        setsockopt(winner.socket.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let tls {
            // The timer keeps running: the handshake counts within the connect timeout.
            startHandshake(winner, tls: tls)
        } else {
            _ = take(winner.index)
            winner.timer.cancel()
            finish(.success(UpstreamConnection(socket: winner.socket.take(), key: key, address: winner.address)))
        }
    }

    /// Moves the connected socket from the plain buffers to TLS ones, which then own it and the SSL
    /// (closing them frees the SSL and closes the socket).
    private func startHandshake(_ winner: Attempt, tls: (context: TLSClientContext, host: String)) {
        let ssl: OpaquePointer
        switch tls.context.makeSSL(host: tls.host, port: winner.address.port) {
        case .success(let made): ssl = made
        case .failure(let failure):
            winner.socket.close()
            _ = take(winner.index)
            winner.timer.cancel()
            Logger.warning("event=tls_setup_failed host=\(tls.host) address=\(winner.address) reason=\"\(failure)\"")
            return finish(.failure(ConnectFailure(hostPort: hostPort, cause: .tls(failure, host: tls.host, address: winner.address))))
        }
        let (fd, recordedLocal) = winner.socket.releaseDescriptorToTLS()
        guard let secured = BufferedSocket(tlsClientOn: fd, ssl: ssl, base: base, recordedLocal: recordedLocal) else {
            SSL_free(ssl)
            Glibc.close(fd)
            _ = take(winner.index)
            winner.timer.cancel()
            let failure = TLSFailure(.handshakeFailed("cannot set up TLS on the connection (out of memory)"))
            return finish(.failure(ConnectFailure(hostPort: hostPort, cause: .tls(failure, host: tls.host, address: winner.address))))
        }
        winner.socket = secured
        winner.phase = .handshaking
        // The handshake starts once the loop sees the socket writable, so the callback is in place in time.
        winner.socket.handOver(to: winner, calling: BufferEventCallbacks.connectAttempt)
    }

    private func handshakeEnded(_ attempt: Attempt, connected: Bool, events: Int16, errnoCode: Int32) {
        guard let tls else { return }
        var failure: TLSFailure?
        if connected, let ssl = attempt.socket.ssl {
            failure = tls.context.pinFailure(ssl, host: tls.host)
        } else {
            failure = TLSFailure.diagnose(handshakeOf: attempt.socket, events: events, errnoCode: errnoCode, host: tls.host)
        }
        attempt.socket.dropCallbacks()
        _ = take(attempt.index)
        if let failure {
            attempt.socket.close()
            tls.context.forgetSession(host: tls.host, port: attempt.address.port)
            recordTLSFailure(failure, address: attempt.address)
            return finish(.failure(ConnectFailure(hostPort: hostPort, cause: .tls(failure, host: tls.host, address: attempt.address))))
        }
        health?.handshakeSucceeded(attempt.address)
        finish(.success(UpstreamConnection(socket: attempt.socket.take(), key: key, address: attempt.address)))
    }

    private func timerFired(_ attempt: Attempt) {
        switch attempt.phase {
        case .connecting:
            _ = take(attempt.index)
            let failure = ConnectFailure.Attempt.Outcome.timedOut(millis: timeoutMillis)
            failures.append(ConnectFailure.Attempt(address: attempt.address, outcome: failure))
            health?.failed(attempt.address, outcome: .timeout, reason: failure.description, elapsedMicros: Int64(timeoutMillis) * 1000)
            discard(attempt)
            perform(race.attemptFailed(attempt.index))
        case .handshaking:
            guard let tls else { return }
            _ = take(attempt.index)
            discard(attempt)
            tls.context.forgetSession(host: tls.host, port: attempt.address.port)
            let failure = TLSFailure(.handshakeTimedOut(millis: timeoutMillis))
            recordTLSFailure(failure, address: attempt.address)
            finish(.failure(ConnectFailure(hostPort: hostPort, cause: .tls(failure, host: tls.host, address: attempt.address))))
        }
    }

    /// A certificate that does not fit the name (or its pins) is this host's problem, and other hosts
    /// served from the address must not lose it; a broken handshake is the path's.
    private func recordTLSFailure(_ failure: TLSFailure, address: SocketAddress) {
        let reason = "TLS: \(failure)"
        if failure.reason.concernsCertificate {
            guard let hostKey else { return }
            health?.hostFailed(address, for: hostKey, reason: reason, outcome: .tlsFailure)
        } else {
            health?.failed(address, outcome: .tlsFailure, reason: reason, elapsedMicros: 0)
        }
    }

    /// Removes the attempt at plan position `index` from the running ones.
    private func take(_ index: Int) -> Attempt? {
        guard let position = running.firstIndex(where: { $0.index == index }) else { return nil }
        return running.remove(at: position)
    }

    private func discard(_ attempt: Attempt) {
        attempt.timer.cancel()
        attempt.socket.close()
    }

    private func finish(_ result: Result<UpstreamConnection, ConnectFailure>) {
        let completion = self.completion
        self.completion = nil
        for attempt in running { discard(attempt) }
        running.removeAll()
        completion?(result)
    }

    /// Why a connect failed. libevent sets errno from SO_ERROR for most failures, but reports a refusal that
    /// connect() returned at once through a deferred callback, with errno unrelated by then.
    private static func connectError(_ fd: Int32, reported: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0, code != 0 { return code }
        switch reported {
        case ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, ECONNRESET, EADDRNOTAVAIL: return reported
        default: return ECONNREFUSED
        }
    }

    /// How logs and error bodies word an errno: the connect attempts' wording, for every connection.
    static func errnoText(_ code: Int32) -> String {
        ConnectFailure.Attempt.Outcome(errno: code).description
    }
}
