/// The absolute deadline for an admin request head (`[admin] header_timeout`). Bytes arriving do not move
/// it: an idle timer that restarts on every byte let a client trickling one byte every few seconds hold a
/// connection for ever, and a few dozen such clients keep `/healthz` and `/metrics` out of reach.
public struct AdminHeadDeadline: Sendable, Equatable {
    /// What the timer firing means.
    public enum Check: Sendable, Equatable {
        /// No head is awaited (a request is being answered): nothing to do.
        case unarmed
        /// The timer fired before the deadline: fire again after this many milliseconds.
        case pending(millis: Int)
        /// The deadline passed: close, after writing `answer` if there is one.
        case expired(AdminClosure, answer: AdminResponse?)
    }

    public let limitMillis: Int
    /// When the wait for the current head began; nil while a request is being answered.
    private var startedMicros: Int64?
    /// Whether this connection has had a response, so silence now is keep-alive, not a client that
    /// connected and never asked.
    private var answeredBefore = false

    public init(limitMillis: Int) {
        self.limitMillis = limitMillis
    }

    /// The connection was accepted: a head is awaited from `now`. Returns the milliseconds to arm the timer for.
    public mutating func accepted(now: Int64) -> Int {
        startedMicros = now
        return limitMillis
    }

    /// The last response has been written: the next head is awaited from `now`. Returns the milliseconds to
    /// arm the timer for.
    public mutating func responseWritten(now: Int64) -> Int {
        answeredBefore = true
        startedMicros = now
        return limitMillis
    }

    /// A whole head arrived: its request is answered without a deadline until `responseWritten`.
    public mutating func headReceived() {
        startedMicros = nil
    }

    /// The timer fired. `partialHead` says whether bytes of the awaited head have arrived.
    public func check(now: Int64, partialHead: Bool) -> Check {
        guard let startedMicros else { return .unarmed }
        let elapsedMicros = now - startedMicros
        let limitMicros = Int64(limitMillis) * 1000
        if elapsedMicros < limitMicros {
            return .pending(millis: Int((limitMicros - elapsedMicros) / 1000) + 1)
        }
        guard partialHead else {
            return .expired(answeredBefore ? .idle : .headTimeout, answer: nil)
        }
        // RFC 9110 §15.5.9: the client that began a request hears why it ends.
        return .expired(.headTimeout, answer: .text(408, "request head not received within \(limitMillis) ms"))
    }
}
