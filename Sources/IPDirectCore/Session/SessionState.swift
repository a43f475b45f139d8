/// Where a client session is, and what it owns there.
public enum SessionState: Equatable {
    /// Waiting for a complete request head; next: resolving, the PAC file, an error answer, parked (nothing
    /// buffered between requests), or closing.
    case readingHead
    /// Between requests with nothing buffered either way: the driver holds no buffers, only a watch on the
    /// socket. Waits for the client's next bytes or FIN, or the idle deadline; next: readingHead, or closed.
    case parked
    /// A connection redirected to the transparent listener: waiting for its first bytes to name where it goes
    /// (`sniff_timeout`); next: resolving, readingHead (an HTTP request), or closed.
    case sniffing
    /// A SOCKS client's negotiation (SOCKS5 greeting, credentials, request; or a SOCKS4 request); next:
    /// authenticating, resolving, or a refusal and closing.
    case socks(SOCKSPhase)
    /// Checking the credentials of an HTTP request or a SOCKS5 client; next: resolving, the SOCKS
    /// request, or a refusal (407, or the SOCKS5 auth failure and closing).
    case authenticating(AuthenticationPurpose)
    /// The PAC file asked for: waiting to learn which listener address the client reached; next: reading the next head or closing.
    case servingPAC(headOnly: Bool)
    /// The host lookup is in flight; next: connecting, or an error answer.
    case resolving(OutboundRequest)
    /// A pooled connection is checked out or new ones race (the machine's `lookupFailure` is set when only a
    /// pooled one can save a request whose lookup failed). Next: forwarding, tunneling, or an error answer.
    case connecting(OutboundRequest)
    /// The request goes upstream (its body may still stream) and the response comes back; next: reading
    /// the next head, resolving again (a dropped reused connection), tunneling (101), or closing.
    case forwarding(Forwarding)
    /// CONNECT or a 101 upgrade: bytes both ways until both directions passed their FIN; next: closed.
    case tunneling(UpstreamLink, HalfCloseTracker)
    /// The last answer is being written; next: lingering once it is out, or closed.
    case flushing
    /// Our FIN is sent; what the client still sends is read and dropped for a while, so that an early
    /// answer is not destroyed by a reset for unread bytes; next: closed.
    case lingering
    /// Both connections freed; every event is ignored.
    case closed
}

/// How far a SOCKS negotiation has come.
public enum SOCKSPhase: Sendable, Equatable {
    /// SOCKS5: the method offer (RFC 1928 §3).
    case greeting
    /// SOCKS5: username and password (RFC 1929).
    case credentials
    /// SOCKS5: the CONNECT request (RFC 1928 §4).
    case request
    /// SOCKS4 or 4a: the one request message.
    case socks4Request
}

/// Whose credentials are being checked.
public enum AuthenticationPurpose: Sendable, Equatable {
    /// An HTTP request's Proxy-Authorization; the request goes on once they are accepted.
    case proxyRequest(OutboundRequest)
    /// A SOCKS5 client's username and password; its request follows once they are accepted.
    case socks5
}

/// What a request still sends upstream once a connection is ready, while it is resolved, checked and
/// connected: a CONNECT sends nothing (an empty head, no body).
/// The rewritten head is not here but in the machine's payloads, where it was written: every payload of the
/// state is then a plain value, and the state copies without reference counting at every event.
public struct OutboundRequest: Sendable, Equatable {
    public var body: BodyProgress
    /// This is the second try, on a fresh connection, of a request whose reused one was dropped: it
    /// never takes a pooled connection again.
    public var retriedOnFreshConnection = false
    /// Whether this response's first-byte time is worth the shared table's lock: only where the host
    /// has several addresses to rank.
    public var firstByteWanted = false

    public init(body: BodyProgress) {
        self.body = body
    }

    /// What a tunnel sends: nothing until it is open.
    public static let tunnel = OutboundRequest(body: .complete)
}

/// The upstream half of a forwarded exchange.
public struct Forwarding: Equatable {
    // The flags follow the link, in the padding after its last byte: under 128 bytes, a copy of the
    // state is a few moves rather than a call to memcpy, and the state is copied at every event.
    public var upstream: UpstreamLink
    public var retriedOnFreshConnection: Bool
    public var firstByteWanted: Bool
    /// The whole request is on its way and the upstream's response timeout runs.
    public var responseTimeoutArmed = false
    /// The request body moves in the kernel: the client's socket is read by the splice, not by flow control.
    public var splicingRequestBody = false
    /// The response body moves in the kernel: the upstream's socket is read by the splice.
    public var splicingResponseBody = false
    public var response: ResponsePhase
    /// The request body still to forward.
    public var requestBody: BodyProgress

    public init(upstream: UpstreamLink, sending outbound: OutboundRequest) {
        self.upstream = upstream
        response = .awaitingHead(interim: 0, bytesSeen: false)
        requestBody = outbound.body
        retriedOnFreshConnection = outbound.retriedOnFreshConnection
        firstByteWanted = outbound.firstByteWanted
    }
}

/// How far the response has come.
public enum ResponsePhase: Sendable, Equatable {
    /// Waiting for the final head; `interim` 1xx heads seen so far; `bytesSeen` once any response byte
    /// arrived (a dropped reused connection is then no longer retried).
    case awaitingHead(interim: Int, bytesSeen: Bool)
    /// The final head went to the client and the body streams. `closeClientAfter`: the client connection
    /// ends with this response; `upstreamKeepAlive`: the server lets its connection be reused.
    case streamingBody(BodyProgress, closeClientAfter: Bool, upstreamKeepAlive: Bool)
}

/// The state without what it owns: what the driver routes readiness by, and what logs name.
public enum SessionPhase: String, Sendable, Equatable, CustomStringConvertible {
    case readingHead = "reading_head"
    case parked
    case sniffing
    case servingPAC = "serving_pac"
    case socksNegotiation = "socks_negotiation"
    case authenticating
    case resolving
    case connecting
    case awaitingResponse = "awaiting_response"
    case streamingResponse = "streaming_response"
    case tunneling
    case flushing
    case lingering
    case closed

    public var description: String { rawValue }
}

extension SessionState {
    public var phase: SessionPhase {
        switch self {
        case .readingHead: return .readingHead
        case .parked: return .parked
        case .sniffing: return .sniffing
        case .servingPAC: return .servingPAC
        case .socks: return .socksNegotiation
        case .authenticating: return .authenticating
        case .resolving: return .resolving
        case .connecting: return .connecting
        case .forwarding(let forwarding):
            if case .awaitingHead = forwarding.response { return .awaitingResponse }
            return .streamingResponse
        case .tunneling: return .tunneling
        case .flushing: return .flushing
        case .lingering: return .lingering
        case .closed: return .closed
        }
    }

    // The payloads an event changes are taken out of the state, changed and put back. Every payload is a
    // plain value (`SessionStateLayoutTests`), so taking and putting one is a copy of a few words. Until the
    // payload is put back the state is `closed`, so nothing may read the state in between.

    /// The forwarding payload, taken out; nil (and the state left as it was) in any other state.
    mutating func takeForwarding() -> Forwarding? {
        guard case .forwarding(let forwarding) = self else { return nil }
        self = .closed
        return forwarding
    }

    /// What a resolving or connecting request will send upstream, taken out; nil (and the state left as it
    /// was) in any other state.
    mutating func takeOutbound() -> OutboundRequest? {
        switch self {
        case .resolving(let outbound), .connecting(let outbound):
            self = .closed
            return outbound
        default:
            return nil
        }
    }

    // Asked instead of `==`, which copies both sides, payloads and all, to compare them.
    @usableFromInline var isReadingHead: Bool {
        if case .readingHead = self { return true }
        return false
    }

    @usableFromInline var isParked: Bool {
        if case .parked = self { return true }
        return false
    }

    /// Whether this state serves a request (the machine's `request`).
    public var servesRequest: Bool {
        switch self {
        case .servingPAC, .socks, .authenticating, .resolving, .connecting, .forwarding, .tunneling:
            return true
        case .readingHead, .parked, .sniffing, .flushing, .lingering, .closed:
            return false
        }
    }

    /// Whether a lookup, a connect or an upstream connection may be in flight.
    var hasUpstreamWork: Bool {
        switch self {
        case .resolving, .connecting, .forwarding, .tunneling: return true
        case .readingHead, .parked, .sniffing, .servingPAC, .socks, .authenticating, .flushing, .lingering, .closed:
            return false
        }
    }
}
