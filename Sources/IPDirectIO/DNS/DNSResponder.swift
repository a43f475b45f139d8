import IPDirectCore

/// How a query reached the DNS listener; UDP answers are capped in size, TCP ones are not.
enum DNSTransport: String {
    case udp
    case tcp
}

/// What became of a message handed to `DNSResponder.answer`.
enum DNSAnswerStart {
    /// Not a query, or unreadable: nothing is sent, and a TCP connection closes.
    case dropped
    /// The reply went out (or was handed to `reply`) already.
    case answered
    /// A lookup runs; cancel it if the client goes away.
    case pending(ResolveHandle)
}

/// One worker's DNS answers: reads a message, applies `[access] clients`, routes the name, looks it up
/// through the worker's resolver chain (the proxy's `[hosts]`, cache and sources), orders the addresses
/// by the ranking at `rank_port`, and hands the encoded response to `reply` on this worker's thread.
final class DNSResponder {
    unowned let worker: Worker

    init(worker: Worker) {
        self.worker = worker
    }

    /// `mayWait`: whether a lookup that cannot be answered from the cache may wait for the resolver; when
    /// not, the query is dropped unanswered (the client asks again), which bounds what a flood costs.
    func answer(_ bytes: [UInt8], from client: SocketAddress, transport: DNSTransport, mayWait: Bool = true,
                reply: @escaping ([UInt8]) -> Void) -> DNSAnswerStart {
        let started = MonotonicClock.nowMicros()
        let settings = worker.config.dns
        let query: DNSQueryMessage
        switch DNSQueryMessage.intake(bytes) {
        case .drop(let reason):
            worker.metrics.update { $0.dns.dropped += 1 }
            Logger.debug("event=dns_dropped client=\(client) transport=\(transport) reason=\"\(reason)\"")
            return .dropped
        case .reply(let response, let reason):
            send(response, limit: DNSQueryMessage.minimumUDPPayload, type: response.question?.type ?? 0,
                 note: reason, client: client, transport: transport, started: started, reply: reply)
            return .answered
        case .query(let read):
            query = read
        }
        let limit = transport == .udp ? query.udpLimit(serverLimit: settings.udpPayloadSize) : DNSResponseMessage.maximumTCPSize
        guard worker.connectionSettings.clients.permits(client.ip.unmapped) else {
            send(query.response(rcode: .refused), limit: limit, type: query.type, note: "client outside access.clients",
                 client: client, transport: transport, started: started, reply: reply)
            return .answered
        }
        let router = DNSQueryRouter(settings: settings, bypass: worker.config.resolver.bypass)
        switch router.route(query) {
        case .answer(let response, let note):
            send(response, limit: limit, type: query.type, note: note, client: client, transport: transport,
                 started: started, reply: reply)
            return .answered
        case .lookUp(let host, let families):
            let finish: (Result<Resolution, ResolveFailure>) -> Void = { [unowned self] result in
                let composer = DNSAnswerComposer(settings: worker.config.dns,
                                                 allowPrivateUpstreams: worker.config.access.allowPrivateUpstreams)
                let composed = composer.compose(query, families: families, ranked(result, host: host))
                if composed.rebindingDrops > 0 { worker.metrics.update { $0.dns.rebindingDrops += UInt64(composed.rebindingDrops) } }
                send(composed.response, limit: limit, type: query.type, note: Self.note(result), client: client,
                     transport: transport, started: started, reply: reply)
            }
            switch worker.connectionSettings.resolver.resolve(host, completion: finish) {
            case .done(let result):
                finish(result)
                return .answered
            case .pending(let handle):
                guard mayWait else {
                    handle.cancel()
                    worker.metrics.update { $0.dns.dropped += 1 }
                    Logger.debug("event=dns_dropped client=\(client) transport=\(transport) reason=\"too many lookups waiting\"")
                    return .dropped
                }
                return .pending(handle)
            }
        }
    }

    /// The addresses in the order a connection to `rank_port` would try them; quarantined ones are left
    /// out unless every address is quarantined, as a connection would still try them then.
    private func ranked(_ result: Result<Resolution, ResolveFailure>, host: String) -> Result<Resolution, ResolveFailure> {
        guard case .success(var resolution) = result, resolution.addresses.count > 1 else { return result }
        let port = worker.config.dns.rankPort
        let plan = worker.health.plan(for: UpstreamHostKey(host: host, port: port),
                                      candidates: resolution.addresses.map { SocketAddress(ip: $0, port: port) },
                                      mode: worker.config.upstream.balanceMode(for: host))
        let healthy = plan.order.filter { !worker.health.isQuarantined($0) }
        resolution.addresses = (healthy.isEmpty ? plan.order : healthy).map(\.ip)
        return .success(resolution)
    }

    private func send(_ response: DNSResponseMessage, limit: Int, type: UInt16, note: @autoclosure () -> String,
                      client: SocketAddress, transport: DNSTransport, started: Int64, reply: ([UInt8]) -> Void) {
        var response = response
        if response.edns != nil { response.edns?.udpPayloadSize = worker.config.dns.udpPayloadSize }
        let bytes = response.encoded(limit: limit)
        let truncated = bytes.count > 2 && bytes[2] & 0x02 != 0
        worker.metrics.update { metrics in
            metrics.dns.countQuery(transport: transport.rawValue, type: type, rcode: response.rcode)
            if truncated { metrics.dns.truncated += 1 }
        }
        reply(bytes)
        // The line and its note are built only when the query log's level is written (debug by default): the
        // name's text alone cost about a tenth of a cached answer's instructions.
        Logger.log(worker.config.dns.queryLogLevel, Self.queryLine(response, bytes: bytes, type: type, note: note(),
                                                                   client: client, transport: transport,
                                                                   truncated: truncated, started: started))
    }

    private static func queryLine(_ response: DNSResponseMessage, bytes: [UInt8], type: UInt16, note: String,
                                  client: SocketAddress, transport: DNSTransport, truncated: Bool,
                                  started: Int64) -> String {
        let name = response.question.map { $0.name.description } ?? "-"
        let answers = Int(bytes.count >= 8 ? UInt16(bytes[6]) << 8 | UInt16(bytes[7]) : 0)
        return "event=dns_query client=\(client) transport=\(transport) name=\(LogQuote.token(name)) type=\(DNSType.name(type)) rcode=\(response.rcode) answers=\(answers)\(truncated ? " truncated=true" : "") elapsed_us=\(MonotonicClock.nowMicros() - started) note=\(LogQuote.quoted(note))"
    }

    /// Where the answer came from, for the query log.
    private static func note(_ result: Result<Resolution, ResolveFailure>) -> String {
        switch result {
        case .success(let resolution): return "source=\(resolution.sourceLabel)"
        case .failure(let failure): return failure.reasonText
        }
    }
}
