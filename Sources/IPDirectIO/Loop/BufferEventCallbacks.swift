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
    static let sessionRead: bufferevent_data_cb = { bev, context in
        Unmanaged<ClientSession>.fromOpaque(context!).takeUnretainedValue().didRead(bev!)
    }
    static let sessionWrite: bufferevent_data_cb = { bev, context in
        Unmanaged<ClientSession>.fromOpaque(context!).takeUnretainedValue().didDrain(bev!)
    }
    static let sessionEvent: bufferevent_event_cb = { bev, events, context in
        Unmanaged<ClientSession>.fromOpaque(context!).takeUnretainedValue().didReceive(bev!, events: events)
    }

    static let poolRead: bufferevent_data_cb = { _, context in
        let connection = Unmanaged<UpstreamConnection>.fromOpaque(context!).takeUnretainedValue()
        connection.pool?.drop(connection)
    }
    static let poolEvent: bufferevent_event_cb = { _, _, context in
        let connection = Unmanaged<UpstreamConnection>.fromOpaque(context!).takeUnretainedValue()
        connection.pool?.drop(connection)
    }

    static let connectEvent: bufferevent_event_cb = { bev, events, context in
        Unmanaged<Connector>.fromOpaque(context!).takeUnretainedValue().attempt(bev!, didReceive: events)
    }
}

extension BufferEventCallbacks {
    static let http1Read: bufferevent_data_cb = { _, context in
        Unmanaged<HTTP1Connection>.fromOpaque(context!).takeUnretainedValue().didRead()
    }
    static let http1Event: bufferevent_event_cb = { _, events, context in
        Unmanaged<HTTP1Connection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
    }

    static let http2Read: bufferevent_data_cb = { _, context in
        Unmanaged<HTTP2Connection>.fromOpaque(context!).takeUnretainedValue().didRead()
    }
    static let http2Event: bufferevent_event_cb = { _, events, context in
        Unmanaged<HTTP2Connection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
    }
}

extension BufferEventCallbacks {
    static let adminRead: bufferevent_data_cb = { _, context in
        Unmanaged<AdminConnection>.fromOpaque(context!).takeUnretainedValue().didRead()
    }
    static let adminWrite: bufferevent_data_cb = { _, context in
        Unmanaged<AdminConnection>.fromOpaque(context!).takeUnretainedValue().didDrain()
    }
    static let adminEvent: bufferevent_event_cb = { _, events, context in
        Unmanaged<AdminConnection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
    }
}

extension BufferEventCallbacks {
    static let dnsStreamRead: bufferevent_data_cb = { _, context in
        Unmanaged<DNSStreamConnection>.fromOpaque(context!).takeUnretainedValue().didRead()
    }
    static let dnsStreamWrite: bufferevent_data_cb = { _, context in
        Unmanaged<DNSStreamConnection>.fromOpaque(context!).takeUnretainedValue().didDrain()
    }
    static let dnsStreamEvent: bufferevent_event_cb = { _, events, context in
        Unmanaged<DNSStreamConnection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
    }

    static let dnsForwardRead: bufferevent_data_cb = { _, context in
        Unmanaged<DNSForwardExchange>.fromOpaque(context!).takeUnretainedValue().didReadStream()
    }
    static let dnsForwardEvent: bufferevent_event_cb = { _, events, context in
        Unmanaged<DNSForwardExchange>.fromOpaque(context!).takeUnretainedValue().didReceiveStream(events: events)
    }
}

extension BufferEventCallbacks {
    static let dotRead: bufferevent_data_cb = { _, context in
        Unmanaged<DoTConnection>.fromOpaque(context!).takeUnretainedValue().didRead()
    }
    static let dotEvent: bufferevent_event_cb = { _, events, context in
        Unmanaged<DoTConnection>.fromOpaque(context!).takeUnretainedValue().didReceive(events: events)
    }
}
