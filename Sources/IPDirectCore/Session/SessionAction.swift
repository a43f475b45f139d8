/// The two connections of a client session.
public enum SessionSide: Sendable, Equatable, CustomStringConvertible {
    case client
    case upstream

    public var description: String { self == .client ? "client" : "upstream" }
}

/// How much each of the session's four buffers holds, as the driver sees them when it reports an
/// event. Flow control and the moments of closing depend on them; the bytes themselves never enter
/// the machine.
public struct BufferLevels: Sendable, Equatable {
    public var clientInput: Int
    public var clientOutput: Int
    public var upstreamInput: Int
    public var upstreamOutput: Int

    public init(clientInput: Int = 0, clientOutput: Int = 0, upstreamInput: Int = 0, upstreamOutput: Int = 0) {
        self.clientInput = clientInput
        self.clientOutput = clientOutput
        self.upstreamInput = upstreamInput
        self.upstreamOutput = upstreamOutput
    }
}

/// Where a request goes once its host is resolved and the policy allowed the addresses.
public struct UpstreamRequest: Sendable, Equatable {
    public var scheme: URIScheme
    /// The host and port, with the hash the request's key took.
    public var hostKey: UpstreamHostKey
    /// In the resolver's order; the driver ranks them with what every worker learned.
    public var addresses: [IPAddress]
    /// A pooled connection may carry the request (never a CONNECT, nor the retry of a dropped reuse).
    public var mayReusePooled: Bool

    public init(scheme: URIScheme, hostKey: UpstreamHostKey, addresses: [IPAddress], mayReusePooled: Bool) {
        self.scheme = scheme
        self.hostKey = hostKey
        self.addresses = addresses
        self.mayReusePooled = mayReusePooled
    }

    public var host: String { hostKey.host }
    public var port: UInt16 { hostKey.port }
    public var poolKey: UpstreamPoolKey { UpstreamPoolKey(scheme: scheme, origin: hostKey) }
    public var hostPort: String { HostName.withPort(host, port) }
}

/// The upstream connection a session is using, as far as its decisions go. Plain flags, so that the state
/// holding it copies without reference counting; its address is in the exchange's record.
public struct UpstreamLink: Sendable, Equatable {
    /// Taken from the pool: the server may have closed it just as it was reused.
    public var reused: Bool
    /// TLS the proxy originates: a FIN under it would cut the record stream.
    public var isTLS: Bool
    /// The server's FIN (or an error) was read.
    public var readClosed = false

    public init(reused: Bool, isTLS: Bool) {
        self.reused = reused
        self.isTLS = isTLS
    }
}

/// How an upstream connection came to the session.
public enum UpstreamArrival: Sendable, Equatable {
    /// Checked out of the pool; `rank` is its address's place in the plan, when there was one.
    case pooled(rank: Int?)
    /// A race of new connections was won after `attempts` starts by the address ranked `rank`.
    case connected(attempts: Int, rank: Int?)
}

/// What made the upstream side of a session end.
public enum UpstreamEnd: Sendable, Equatable {
    /// The server's FIN: the end of a close-delimited body, or a half-close in a tunnel.
    case eof
    /// The response timeout passed with no bytes.
    case timeout
    case error
}

/// What a client session asks its driver to do. An event queues its list on the machine
/// (`SessionMachine.actions`) and the driver performs it in order; one that may report an event back at
/// once (`reportsBackAtOnce`: a lookup answered from the cache, a pump that finishes the exchange) comes
/// last in its list, so no later action runs against a state that has moved on.
///
/// An action holds only plain values: what it needs beyond them (bytes, names, the error) the driver reads
/// from the machine when it performs it (`SessionMachine.payloads`, `request`), as nothing between the event
/// and that moment changes the machine. A list of actions is then copied and dropped without touching a
/// reference count. No payload is wider than one machine word: the cases without one are then told apart
/// by one comparison of a word, and the driver's switch over them is a jump table rather than a chain of
/// comparisons (a payload of two words cost about 800 instructions per request in those chains).
public enum SessionAction: Equatable {
    /// Writes bytes the proxy made (`payloads.reply`: an error answer, "200 Connection Established", a 1xx
    /// or 101 head, the PAC file) to the client.
    case sendToClient
    /// Looks the request's host up; the answer comes back as `resolved`.
    case resolve
    /// Checks out a pooled connection (where allowed) or races new ones for `payloads.upstream`; reported
    /// as `upstreamReady` or `connectFailed`.
    case connect
    /// The lookup failed: a healthy pooled connection to the request's pool key may still carry it.
    /// Reported as `upstreamReady` or `noPooledConnection`.
    case reusePooled
    /// Sends the upstream request head (`payloads.requestHead`) together with the first body bytes, then
    /// pumps the body; reported as `requestBodyPumped`.
    case forwardRequest
    case pumpRequestBody
    /// Parses the response heads buffered from the upstream.
    case readResponseHead
    /// Sends the final response head (`payloads.responseHead`) together with the first body bytes, then
    /// pumps the body; reported as `responseBodyPumped`.
    case forwardResponse
    case pumpResponseBody
    /// Moves the rest of a body from that side's socket straight to the other's through a pipe, at most
    /// `payloads.spliceLimit` bytes (nil: until the sender's FIN), with nothing buffered on either side. Reading that
    /// side is the splice's until it ends; progress is reported as `requestBodyPumped` or
    /// `responseBodyPumped`, a FIN or failure as `upstreamClosed` or `clientClosed`.
    case spliceBody(from: SessionSide)
    /// Reads what the client sent next: a request head, or a SOCKS message, whichever
    /// `bytesArrived(from: .client)` names.
    case readNextRequest
    /// Parses the next SOCKS message buffered from the client.
    case readSOCKSMessage
    /// Hands everything a redirected connection's client has sent so far (up to
    /// `ClientHelloReader.maximumBytes`) to `clientBytesSniffed`, taking none of it from the buffer.
    case sniffClientInput
    /// Frees the client's buffers (nothing is in them) and everything of the session but the machine, and
    /// watches the socket alone, firing after `idleMillis` unless bytes or a FIN come first (reported as
    /// `clientReadable` or `clientClosed`, or `deadlinePassed`). Always the last action of its list.
    case park(idleMillis: Int)
    case pauseReading(SessionSide)
    case resumeReading(SessionSide)
    /// Sends a FIN on that side's socket.
    case shutWrite(SessionSide)
    /// Reports `outputDrained(.client)` once the client's output is empty (at once when it is).
    case flushClient
    /// Reports as `unreadClientInputCounted` how many bytes the kernel holds unread from the client.
    case countUnreadClientInput
    /// Drops what the client sent and sends: nothing more of it will be read.
    case discardClientInput
    /// Relays what is buffered both ways, each relay reported as `tunnelRelayed`, then reports
    /// `tunnelStartRelayed`.
    case startTunnel
    /// Hands both sockets to a kernel relay (splice); its end is reported as `tunnelFinished`.
    case spliceTunnel
    case relay(from: SessionSide)
    /// The upstream's read timeout, from now on: the whole request is on its way.
    case armResponseTimeout(millis: Int)
    /// The session's one timer; reported as `deadlinePassed`.
    case armTimer(millis: Int)
    case cancelTimer
    /// Time from the request's last byte to the response's first, for the address ranking of the
    /// request's host.
    case recordFirstByte(micros: Int64)
    /// A failure (`payloads.hostFailure`) of the upstream address for the request's host only.
    case recordHostFailure
    /// The exchange is over: pool the upstream connection when `reusable`, else close it.
    case releaseUpstream(reusable: Bool)
    /// Cancels a lookup or connect in flight and closes the upstream connection, never pooled.
    case abandonUpstream
    /// Checks a user's password (`SessionMachine.takeCredentials()`) against `[access] auth_file`; reported
    /// as `credentialsChecked`.
    case verifyCredentials
    /// Drops bytes of the client's input that the machine has read (SOCKS messages).
    case consumeClientInput(Int)
    /// Asks which local address the client reached, for the PAC file; reported as `listenerAddressKnown`.
    case lookUpListenerAddress
    /// A warning line for an error the proxy answers itself (`payloads.error`, for the request's host).
    case reportError
    /// An event line: the addresses a transparent connection's name resolves to (`transparent.answer`) do
    /// not include the address the client chose, a sign that its own resolver was hijacked or stale.
    case reportTransparentMismatch
    /// A debug line for a deadline that ended the connection.
    case reportTimeout(SessionDeadline.Reason)
    /// The access-log line and the metrics of a finished (or abandoned) exchange: the machine's `request`
    /// and `record` as they are when this action is performed. It comes first in its list, so they are read
    /// before anything of the next exchange begins; it carries no copy of them, since the two values are
    /// five times the size of any other action and every list of every event would copy that size per element.
    case logExchange
    /// Frees both connections; nothing else runs after it.
    case close
}

extension SessionAction {
    /// Whether performing this action may report an event to the machine before it returns (an answer
    /// from a cache, bytes already buffered, a pump that ends the exchange): such an action is the last of
    /// its list.
    public var reportsBackAtOnce: Bool {
        switch self {
        case .resolve, .connect, .reusePooled, .forwardRequest, .pumpRequestBody, .readResponseHead,
             .forwardResponse, .pumpResponseBody, .spliceBody, .readNextRequest, .readSOCKSMessage,
             .sniffClientInput, .park,
             .flushClient, .countUnreadClientInput, .startTunnel, .spliceTunnel, .relay, .verifyCredentials,
             .lookUpListenerAddress:
            return true
        case .sendToClient, .pauseReading, .resumeReading, .shutWrite, .discardClientInput, .armResponseTimeout,
             .armTimer, .cancelTimer, .recordFirstByte, .recordHostFailure, .releaseUpstream, .abandonUpstream,
             .consumeClientInput, .reportError, .reportTransparentMismatch, .reportTimeout, .logExchange, .close:
            return false
        }
    }
}
