import IPDirectCore

/// How a query reached the DNS listener; UDP answers are capped in size, TCP ones are not.
enum DNSTransport: String {
    case udp
    case tcp
}

/// Sends a response and logs it: the source that answered (as the query log names it) and, when the answer
/// was not looked up or the lookup failed, why.
typealias DNSRespond = (DNSResponseMessage, String, String?) -> Void

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
    /// Queries relayed to other servers and not yet answered, at most
    /// `DNSSettings.maxForwardedInFlightPerWorker`.
    private var forwards: [ObjectIdentifier: DNSForwardExchange] = [:]
    init(worker: Worker) {
        self.worker = worker
    }

    /// What the templates depend on besides the query, read without a lock.
    private var templateStamp: DNSAnswerStamp {
        DNSAnswerStamp(cacheChanges: worker.resolverService.answerChanges, healthChanges: worker.health.changes,
                       settings: worker.settingsGeneration)
    }

    /// Answers a repeated A or AAAA question from its template, as `answer` would (the same octets, with
    /// the TTL counted down): writes the response into `output` and returns its length. Nil when no
    /// template holds (the query takes `answer`): another shape of query, a changed cache, ranking or
    /// configuration, a client outside `[access] clients`, an answer larger than the query may receive.
    func answerFromTemplate(_ bytes: UnsafeRawBufferPointer, from client: SocketAddress, transport: DNSTransport,
                            into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard let store = worker.dnsTemplates, let query = DNSTemplateQuery.read(bytes) else { return nil }
        let settings = worker.config.dns
        let now = MonotonicClock.nowMicros()
        let limit = transport == .udp ? min(query.udpLimit(serverLimit: settings.udpPayloadSize), output.count) : output.count
        guard let (size, template) = store.answer(query, bytes, now: now, stamp: templateStamp, udpPayload: settings.udpPayloadSize,
                                                into: UnsafeMutableRawBufferPointer(rebasing: output[..<limit])),
              worker.connectionSettings.clients.permits(client.ip.unmapped) else { return nil }
        worker.metrics.update { $0.dns.countAddressAnswer(tcp: transport == .tcp, ipv6: query.type == DNSType.aaaa) }
        if let transparent = worker.transparent {
            transparent.answeredNames.answered(.init(queryFrom: client.ip), HostName.normalized(query.hostName(bytes)),
                                               with: template.addresses,
                                               ttlSeconds: Int(template.maxTTLSeconds), now: now)
        }
        if worker.queryLog.isOn || Logger.writes(settings.queryLogLevel) {
            let addresses = template.addresses
            let name = query.hostName(bytes)
            worker.queryLog.recordTemplateAnswer(name: name, type: query.type, source: template.source, addresses: addresses,
                                                 client: client, startedMicros: now)
            Logger.log(settings.queryLogLevel, "event=dns_query client=\(client) transport=\(transport) name=\(LogQuote.token(name + ".")) type=\(DNSType.name(query.type)) rcode=NOERROR answers=\(addresses.count) elapsed_us=\(MonotonicClock.nowMicros() - now) note=\(LogQuote.quoted("source=\(template.source)"))")
        }
        return size
    }

    /// Keeps the answer just sent as a template when a repeat of the query would get the same octets:
    /// addresses from the cache, fresh, in an order no balance mode turns.
    private func keepTemplate(_ response: [UInt8], for query: DNSTemplateQuery, _ queryBytes: [UInt8], resolution: Resolution,
                              families: [AddressFamily], ranked: Bool, stamp: DNSAnswerStamp, host: String) {
        guard let store = worker.dnsTemplates, case .hit = resolution.cache, resolution.source != .hosts,
              resolution.source != .literal, families.count == 1, let secondsLeft = resolution.secondsLeft[families[0]],
              worker.config.upstream.balanceMode(for: host) == .fastest else { return }
        let now = MonotonicClock.nowMicros()
        let template = queryBytes.withUnsafeBytes { queryBytes in
            DNSAnswerTemplate(response: response, for: query, queryBytes, source: resolution.sourceLabel, stamp: stamp,
                              maxTTLSeconds: worker.config.dns.maxTTLSeconds, secondsLeft: secondsLeft,
                              lifetimeMicros: ranked ? DNSSettings.rankedTemplateLifetimeMicros : Int64.max / 2,
                              udpPayload: worker.config.dns.udpPayloadSize, now: now)
        }
        if let template { store.keep(template, now: now) }
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
                 source: QueryLogEntry.noSource, note: reason, client: client, transport: transport, started: started,
                 reply: reply)
            return .answered
        case .query(let read):
            query = read
        }
        let limit = transport == .udp ? query.udpLimit(serverLimit: settings.udpPayloadSize) : DNSResponseMessage.maximumTCPSize
        let route = DNSQueryRouter(settings: settings, bypass: worker.config.resolver.bypass).route(query)
        // Before the client check: the probe comes from ipdirect's own system source, whatever `[access] clients` says.
        if case .loopProbe(let host, let response) = route {
            worker.resolverService.loopProbeArrived(host)
            send(response, limit: limit, type: query.type, source: QueryLogEntry.localSource, note: "ipdirect's loop probe",
                 client: client, transport: transport, started: started, reply: reply)
            return .answered
        }
        guard worker.connectionSettings.clients.permits(client.ip.unmapped) else {
            send(query.response(rcode: .refused), limit: limit, type: query.type, source: QueryLogEntry.noSource,
                 note: "client outside access.clients", client: client, transport: transport, started: started, reply: reply)
            return .answered
        }
        let respond: DNSRespond = { [unowned self] response, source, note in
            send(response, limit: limit, type: query.type, source: source, note: note, client: client,
                 transport: transport, started: started, reply: reply)
        }
        switch route {
        case .loopProbe:
            return .answered
        case .answer(let response, let note):
            respond(response, QueryLogEntry.localSource, note)
            return .answered
        case .forward(let servers, let note):
            return forward(query, to: servers, https: settings.httpsRecords, note: note, respond: respond)
        case .relay(let host, let fallback, let https, let note):
            guard mayWait else {
                worker.metrics.update { $0.dns.dropped += 1 }
                Logger.debug("event=dns_dropped client=\(client) transport=\(transport) reason=\"too many lookups waiting\"")
                return .dropped
            }
            return relay(query, host: host, fallback: fallback, https: https, note: note, respond: respond)
        case .lookUp(let host, let families):
            // Read before the lookup: a change the lookup races with leaves the template made from it unused.
            let stamp = templateStamp
            let shape = bytes.withUnsafeBytes { DNSTemplateQuery.read($0) }
            let finish: (Result<Resolution, ResolveFailure>) -> Void = { [unowned self] result in
                let composer = DNSAnswerComposer(settings: worker.config.dns,
                                                 allowPrivateUpstreams: worker.config.access.allowPrivateUpstreams)
                let (ordered, byRanking) = ranked(result, host: host, families: families)
                let composed = composer.compose(query, families: families, ordered)
                probeIfAsked(ordered, host: host)
                if composed.rebindingDrops > 0 { worker.metrics.update { $0.dns.rebindingDrops += UInt64(composed.rebindingDrops) } }
                let (source, failure) = Self.source(result)
                let sent = send(composed.response, limit: limit, type: query.type, source: source, note: failure,
                                client: client, transport: transport, started: started, reply: reply)
                if let shape, case .success(let resolution) = ordered {
                    keepTemplate(sent, for: shape, bytes, resolution: resolution, families: families, ranked: byRanking,
                                 stamp: stamp, host: host)
                }
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

    /// Relays `query` about `host` to the doh and dot providers that serve it (through the resolver thread,
    /// which owns their connections); without one, to the `fallback` servers; without those, REFUSED.
    private func relay(_ query: DNSQueryMessage, host: String, fallback: [SocketAddress], https: DNSHTTPSRecords,
                       note: String, respond: @escaping DNSRespond) -> DNSAnswerStart {
        // RFC 8484 §4.1: ID 0, so that HTTP caches see the same request for the same question.
        let relayed = DNSRelayedQuery(client: query, upstreamID: 0)
        let handle = worker.resolverService.relay(host, relayed, replyTo: worker.mailbox) { [unowned self] outcome in
            switch outcome {
            case .noProvider where fallback.isEmpty:
                respond(query.response(rcode: .refused), QueryLogEntry.noSource, "\(note): no doh or dot provider and no forward server")
            case .noProvider:
                // The client's handle is the provider relay's, now finished: a client that goes away
                // meanwhile is not told of, and the forward exchange ends by itself (answer or timeout).
                _ = forward(query, to: fallback, https: https, note: "\(note): no doh or dot provider", respond: respond)
            case .failed(let reason):
                worker.metrics.update { $0.dns.countRelay(toProvider: true, answered: false) }
                respond(query.response(rcode: .serverFailure), QueryLogEntry.noSource, "\(note); providers failed: \(reason)")
            case .answered(let message, let provider):
                guard case .response(let response, let dropped) = relayed.read(message, https: https) else {
                    worker.metrics.update { $0.dns.countRelay(toProvider: true, answered: false) }
                    respond(query.response(rcode: .serverFailure), provider, "\(note); provider=\(provider) gave no usable answer")
                    return
                }
                worker.metrics.update { $0.dns.countRelay(toProvider: true, answered: true) }
                respond(response, provider, "\(note); provider=\(provider)\(Self.droppedNote(dropped))")
            }
        }
        return .pending(handle)
    }

    /// Relays `query` to plain-DNS `servers` from this worker's loop; SERVFAIL when none answers, or when
    /// too many relayed queries already wait.
    private func forward(_ query: DNSQueryMessage, to servers: [SocketAddress], https: DNSHTTPSRecords, note: String,
                         respond: @escaping DNSRespond) -> DNSAnswerStart {
        guard forwards.count < DNSSettings.maxForwardedInFlightPerWorker else {
            worker.metrics.update { $0.dns.countRelay(toProvider: false, answered: false) }
            respond(query.response(rcode: .serverFailure), QueryLogEntry.noSource, "\(note); too many forwarded queries waiting")
            return .answered
        }
        let attempts = DNSForwardAttempts(relayed: DNSRelayedQuery(client: query, upstreamID: .random(in: .min ... .max)),
                                          servers: servers, https: https)
        let exchange = DNSForwardExchange(base: worker.base, attempts: attempts) { [unowned self] outcome in
            switch outcome {
            case .answer(let response, let dropped, let server):
                worker.metrics.update { $0.dns.countRelay(toProvider: false, answered: true) }
                respond(response, "forward:\(server)", "\(note); forwarded to \(server)\(Self.droppedNote(dropped))")
            case .fail(let reason):
                worker.metrics.update { $0.dns.countRelay(toProvider: false, answered: false) }
                respond(query.response(rcode: .serverFailure), QueryLogEntry.noSource, "\(note); forward failed: \(reason)")
            case .sendUDP, .sendTCP, .keepWaiting:
                break
            }
        }
        exchange.ended = { [unowned self] ended in forwards[ObjectIdentifier(ended)] = nil }
        forwards[ObjectIdentifier(exchange)] = exchange
        exchange.start()
        return exchange.isFinished ? .answered : .pending(exchange)
    }

    private static func droppedNote(_ dropped: Int) -> String {
        dropped > 0 ? ", \(dropped) records dropped" : ""
    }

    /// Cancels the relayed queries still waiting (the worker stops).
    func close() {
        for exchange in Array(forwards.values) { exchange.cancel() }
    }

    /// The addresses of the families asked, in the order a connection to `rank_port` would try them;
    /// quarantined ones are left out unless every address is quarantined, as a connection would still try
    /// them then.
    /// `byRanking`: whether the ranking put them in order (else they are in the provider's order).
    private func ranked(_ result: Result<Resolution, ResolveFailure>, host: String,
                        families: [AddressFamily]) -> (Result<Resolution, ResolveFailure>, byRanking: Bool) {
        guard case .success(var resolution) = result else { return (result, false) }
        if families.count == 1 {
            let wantsIPv6 = families[0] == .v6
            resolution.addresses.removeAll { $0.isIPv6 != wantsIPv6 }
        }
        guard resolution.addresses.count > 1 else { return (.success(resolution), false) }
        let port = worker.config.dns.rankPort
        let order = worker.health.answerOrder(for: UpstreamHostKey(host: host, port: port),
                                              candidates: resolution.addresses.map { SocketAddress(ip: $0, port: port) },
                                              mode: worker.config.upstream.balanceMode(for: host))
        if let order { resolution.addresses = order.map(\.ip) }
        return (.success(resolution), order != nil)
    }

    /// `[dns] probe_answers`: addresses of a looked-up name get a ranking from probes, rate-limited, unless a
    /// `[[upstream.probe]]` rule already probes the name's answers where the resolver stores them.
    private func probeIfAsked(_ result: Result<Resolution, ResolveFailure>, host: String) {
        guard worker.config.dns.probeAnswers, case .success(let resolution) = result,
              resolution.source != .hosts, resolution.source != .literal,
              worker.config.upstream.probePort(for: host) == nil else { return }
        worker.prober.answerHandedOut(resolution.addresses, port: worker.config.dns.rankPort)
    }

    /// `source` as the query log names it; `note` says why the answer is what it is, when it was not looked up
    /// or the lookup failed.
    @discardableResult
    private func send(_ response: DNSResponseMessage, limit: Int, type: UInt16, source: String, note: String?,
                      client: SocketAddress, transport: DNSTransport, started: Int64, reply: ([UInt8]) -> Void) -> [UInt8] {
        var response = response
        if response.edns != nil { response.edns?.udpPayloadSize = worker.config.dns.udpPayloadSize }
        let bytes = response.encoded(limit: limit)
        let truncated = bytes.count > 2 && bytes[2] & 0x02 != 0
        worker.metrics.update { metrics in
            metrics.dns.countQuery(transport: transport.rawValue, type: type, rcode: response.rcode)
            if truncated { metrics.dns.truncated += 1 }
        }
        reply(bytes)
        if let transparent = worker.transparent {
            Self.remember(response, for: .init(queryFrom: client.ip), in: transparent.answeredNames, now: started)
        }
        worker.queryLog.recordListenerQuery(response, client: client, source: source, detail: note, startedMicros: started)
        // The line is built only when the query log's level is written (debug by default): the name's text
        // alone cost about a tenth of a cached answer's instructions.
        Logger.log(worker.config.dns.queryLogLevel, Self.queryLine(response, bytes: bytes, type: type,
                                                                   note: note ?? "source=\(source)", client: client,
                                                                   transport: transport, truncated: truncated,
                                                                   started: started))
        return bytes
    }

    /// The names answered with addresses, for redirected connections that name none (transparent mode).
    private static func remember(_ response: DNSResponseMessage, for asker: AnsweredNames.Asker, in names: AnsweredNames,
                                 now: Int64) {
        guard let question = response.question else { return }
        let records = response.answers.filter { $0.type == DNSType.a || $0.type == DNSType.aaaa }
        guard let ttl = records.map(\.ttl).min() else { return }
        let addresses = records.compactMap { IPAddress(bytes: $0.data) }
        names.answered(asker, HostName.normalized(question.name.description), with: addresses, ttlSeconds: Int(ttl), now: now)
    }

    private static func queryLine(_ response: DNSResponseMessage, bytes: [UInt8], type: UInt16, note: String,
                                  client: SocketAddress, transport: DNSTransport, truncated: Bool,
                                  started: Int64) -> String {
        let name = response.question.map { $0.name.description } ?? "-"
        let answers = Int(bytes.count >= 8 ? UInt16(bytes[6]) << 8 | UInt16(bytes[7]) : 0)
        return "event=dns_query client=\(client) transport=\(transport) name=\(LogQuote.token(name)) type=\(DNSType.name(type)) rcode=\(response.rcode) answers=\(answers)\(truncated ? " truncated=true" : "") elapsed_us=\(MonotonicClock.nowMicros() - started) note=\(LogQuote.quoted(note))"
    }

    /// Where the answer came from, or why there was none, for the query log.
    private static func source(_ result: Result<Resolution, ResolveFailure>) -> (source: String, failure: String?) {
        switch result {
        case .success(let resolution): return (resolution.sourceLabel, nil)
        case .failure(let failure): return (QueryLogEntry.noSource, failure.reasonText)
        }
    }
}
