import CEvent

/// The callbacks libevent calls on one bufferevent, for owners of type `Owner`: the type ties the
/// trampolines to the object whose pointer they are given (`BufferedSocket.handOver(to:calling:)`).
struct BufferEventHandlers<Owner: AnyObject> {
    let read: bufferevent_data_cb?
    let drain: bufferevent_data_cb?
    let event: bufferevent_event_cb?

    init(read: bufferevent_data_cb?, drain: bufferevent_data_cb? = nil, event: bufferevent_event_cb?) {
        self.read = read
        self.drain = drain
        self.event = event
    }
}

/// Every libevent bufferevent trampoline in one place. Each recovers its owner from the context
/// pointer without retaining it; owners clear callbacks before they are freed, so a context is
/// never stale when a callback runs.
enum BufferEventCallbacks {
    /// A session is borrowed, not retained, for each call (two atomic operations fewer per callback): the worker
    /// lets go of a session only through `SpareConnections.keep(_:)`, which keeps it or retires it until the
    /// loop's turn ends, so it outlives every callback it is in.
    static let sessionClient = BufferEventHandlers<ClientSession>(
        read: { _, context in ClientSession.borrowed(context) { $0.didRead(from: .client) } },
        drain: { _, context in ClientSession.borrowed(context) { $0.didDrain(.client) } },
        event: { _, events, context in ClientSession.borrowed(context) { $0.didReceive(from: .client, events: events) } })
    static let sessionUpstream = BufferEventHandlers<ClientSession>(
        read: { _, context in ClientSession.borrowed(context) { $0.didRead(from: .upstream) } },
        drain: { _, context in ClientSession.borrowed(context) { $0.didDrain(.upstream) } },
        event: { _, events, context in ClientSession.borrowed(context) { $0.didReceive(from: .upstream, events: events) } })

    /// Any byte, EOF or error while pooled makes a connection unusable; the pool decides about a timeout.
    static let pooled = BufferEventHandlers<UpstreamConnection>(
        read: { _, context in
            let connection = Unmanaged<UpstreamConnection>.fromOpaque(context!).takeUnretainedValue()
            connection.pool?.drop(connection)
        },
        event: { _, events, context in
            let connection = Unmanaged<UpstreamConnection>.fromOpaque(context!).takeUnretainedValue()
            connection.pool?.idleConnection(connection, reported: events)
        })

    static let connectAttempt = BufferEventHandlers<Connector.Attempt>(read: nil, event: { _, events, context in
        let attempt = Unmanaged<Connector.Attempt>.fromOpaque(context!).takeUnretainedValue()
        attempt.connector.attempt(attempt, didReceive: events)
    })
}

extension BufferEventCallbacks {
    static let http1 = BufferEventHandlers<HTTP1Connection>(
        read: { _, context in Unmanaged<HTTP1Connection>.fromOpaque(context!).takeUnretainedValue().didRead() },
        event: { _, events, context in
            Unmanaged<HTTP1Connection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
        })
    static let http2 = BufferEventHandlers<HTTP2Connection>(
        read: { _, context in Unmanaged<HTTP2Connection>.fromOpaque(context!).takeUnretainedValue().didRead() },
        event: { _, events, context in
            Unmanaged<HTTP2Connection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
        })
}

extension BufferEventCallbacks {
    static let admin = BufferEventHandlers<AdminConnection>(
        read: { _, context in Unmanaged<AdminConnection>.fromOpaque(context!).takeUnretainedValue().didRead() },
        drain: { _, context in Unmanaged<AdminConnection>.fromOpaque(context!).takeUnretainedValue().didDrain() },
        event: { _, events, context in
            Unmanaged<AdminConnection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
        })
}

extension BufferEventCallbacks {
    static let dnsStream = BufferEventHandlers<DNSStreamConnection>(
        read: { _, context in Unmanaged<DNSStreamConnection>.fromOpaque(context!).takeUnretainedValue().didRead() },
        drain: { _, context in Unmanaged<DNSStreamConnection>.fromOpaque(context!).takeUnretainedValue().didDrain() },
        event: { _, events, context in
            Unmanaged<DNSStreamConnection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
        })
    static let dnsForward = BufferEventHandlers<DNSForwardExchange>(
        read: { _, context in Unmanaged<DNSForwardExchange>.fromOpaque(context!).takeUnretainedValue().didReadStream() },
        event: { _, events, context in
            Unmanaged<DNSForwardExchange>.fromOpaque(context!).takeUnretainedValue().didReceiveStream(events: events)
        })
}

extension BufferEventCallbacks {
    static let dot = BufferEventHandlers<DoTConnection>(
        read: { _, context in Unmanaged<DoTConnection>.fromOpaque(context!).takeUnretainedValue().didRead() },
        event: { _, events, context in
            Unmanaged<DoTConnection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
        })
}
