@testable import IPDirectCore

extension SessionScript {
    /// An action as the driver performs it, with what it reads from the machine then (the bytes, the host,
    /// the error): the tables name each action by everything it does.
    enum Action: Equatable {
        // Those that carry more than the machine's action, read from the machine:
        case sendToClient([UInt8]), resolve(host: String), connect(UpstreamRequest), reusePooled(key: UpstreamPoolKey)
        case forwardRequest(head: [UInt8]), forwardResponse(head: [UInt8])
        case recordFirstByte(micros: Int64, host: UpstreamHostKey), recordHostFailure(reason: String, host: UpstreamHostKey)
        case verifyCredentials(user: String, password: String), reportError(ProxyError, target: String)
        // Those that are the machine's action as it is:
        case pumpRequestBody, readResponseHead, pumpResponseBody, readNextRequest, readSOCKSMessage, sniffClientInput, flushClient
        case countUnreadClientInput, discardClientInput, startTunnel, spliceTunnel, cancelTimer, abandonUpstream
        case lookUpListenerAddress, logExchange, close
        case spliceBody(from: SessionSide, limit: UInt64?), park(idleMillis: Int), relay(from: SessionSide)
        case pauseReading(SessionSide), resumeReading(SessionSide), shutWrite(SessionSide)
        case armResponseTimeout(millis: Int), armTimer(millis: Int), releaseUpstream(reusable: Bool)
        case consumeClientInput(Int), reportTimeout(SessionDeadline.Reason)
        case reportTransparentMismatch(answer: [IPAddress])

        /// `action` as `machine` would have the driver perform it now.
        init(_ action: SessionAction, of machine: SessionMachine) {
            let payloads = machine.payloads
            switch action {
            case .sendToClient: self = .sendToClient(payloads.reply)
            case .resolve: self = .resolve(host: machine.request.host)
            case .connect:
                guard let upstream = payloads.upstream else { fatalError("connect without an upstream request") }
                self = .connect(upstream)
            case .reusePooled: self = .reusePooled(key: machine.request.poolKey)
            case .forwardRequest: self = .forwardRequest(head: payloads.requestHead.bytes)
            case .pumpRequestBody: self = .pumpRequestBody
            case .readResponseHead: self = .readResponseHead
            case .forwardResponse: self = .forwardResponse(head: payloads.responseHead.bytes)
            case .pumpResponseBody: self = .pumpResponseBody
            case .spliceBody(let side): self = .spliceBody(from: side, limit: payloads.spliceLimit)
            case .readNextRequest: self = .readNextRequest
            case .readSOCKSMessage: self = .readSOCKSMessage
            case .sniffClientInput: self = .sniffClientInput
            case .park(let millis): self = .park(idleMillis: millis)
            case .pauseReading(let side): self = .pauseReading(side)
            case .resumeReading(let side): self = .resumeReading(side)
            case .shutWrite(let side): self = .shutWrite(side)
            case .flushClient: self = .flushClient
            case .countUnreadClientInput: self = .countUnreadClientInput
            case .discardClientInput: self = .discardClientInput
            case .startTunnel: self = .startTunnel
            case .spliceTunnel: self = .spliceTunnel
            case .relay(let side): self = .relay(from: side)
            case .armResponseTimeout(let millis): self = .armResponseTimeout(millis: millis)
            case .armTimer(let millis): self = .armTimer(millis: millis)
            case .cancelTimer: self = .cancelTimer
            case .recordFirstByte(let micros): self = .recordFirstByte(micros: micros, host: machine.request.hostKey)
            case .recordHostFailure: self = .recordHostFailure(reason: payloads.hostFailure, host: machine.request.hostKey)
            case .releaseUpstream(let reusable): self = .releaseUpstream(reusable: reusable)
            case .abandonUpstream: self = .abandonUpstream
            case .verifyCredentials:
                guard let credentials = payloads.credentials else { fatalError("verifyCredentials without credentials") }
                self = .verifyCredentials(user: credentials.user, password: credentials.password)
            case .consumeClientInput(let count): self = .consumeClientInput(count)
            case .lookUpListenerAddress: self = .lookUpListenerAddress
            case .reportError:
                guard let error = payloads.error else { fatalError("reportError without an error") }
                self = .reportError(error, target: machine.request.hostPort)
            case .reportTimeout(let reason): self = .reportTimeout(reason)
            case .reportTransparentMismatch: self = .reportTransparentMismatch(answer: machine.transparent?.answer ?? [])
            case .logExchange: self = .logExchange
            case .close: self = .close
            }
        }
    }
}
