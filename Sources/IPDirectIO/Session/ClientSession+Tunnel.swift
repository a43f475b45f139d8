import CEvent
import Glibc
import IPDirectCore

/// CONNECT tunnels and upgraded connections: bytes both ways with le-proxy's flow control and
/// half-close passed through (an EOF from one side becomes a FIN to the other once flushed).
extension ClientSession {
    func startTunnel() {
        guard let upstream else { return }
        state = .tunneling
        tunnelCounted = true
        worker.metrics.update { $0.tunnelsOpened += 1; $0.tunnelsActive += 1 }
        bufferevent_set_timeouts(upstream.bev, nil, nil)
        bufferevent_enable(client, Int16(EV_READ))
        bufferevent_enable(upstream.bev, Int16(EV_READ))
        setIdleLimit(millis: settings.tunnelIdleTimeoutMs, reason: "tunnel_idle_timeout")
        // Bytes that arrived early (a TLS ClientHello right behind CONNECT) go through at once.
        relay(fromClient: true)
        relay(fromClient: false)
        switchToSplice()
    }

    /// Hands the sockets to a `SpliceTunnel` once nothing is left in the bufferevents' own buffers, so
    /// bulk bytes no longer pass through user space. Otherwise the buffer relay below carries on.
    private func switchToSplice() {
        guard let upstream, !upstream.isTLS, !clientReadClosed, !upstreamReadClosed,
              evbuffer_get_length(clientInput) == 0, evbuffer_get_length(upstream.input) == 0,
              evbuffer_get_length(clientOutput) == 0, evbuffer_get_length(upstream.output) == 0,
              let tunnel = SpliceTunnel(base: worker.base, client: bufferevent_getfd(client), upstream: upstream.fd)
        else { return }
        bufferevent_disable(client, Int16(EV_READ | EV_WRITE))
        bufferevent_disable(upstream.bev, Int16(EV_READ | EV_WRITE))
        tunnel.onActivity = { [unowned self] in lastActivityMicros = MonotonicClock.nowMicros() }
        tunnel.onFinish = { [unowned self] reason in
            if let reason { exchange?.note = "tunnel \(reason)" }
            close()
        }
        splice = tunnel
        tunnel.start()
    }

    /// Adds what the splice relay moved to the exchange's byte counts, once.
    func collectSpliceCounts() {
        guard let tunnel = splice else { return }
        exchange?.bytesFromClient += tunnel.bytesToUpstream
        exchange?.bytesToClient += tunnel.bytesToClient
        tunnel.close()
        splice = nil
    }

    func relay(fromClient: Bool) {
        guard let upstream else { return }
        let source = fromClient ? clientInput : upstream.input
        let destination = fromClient ? upstream.bev : client
        let length = ByteTransfer.move(from: source, to: destination)
        guard length > 0 else { return }
        lastActivityMicros = MonotonicClock.nowMicros()
        if fromClient { exchange?.bytesFromClient += UInt64(length) } else { exchange?.bytesToClient += UInt64(length) }
        if evbuffer_get_length(bufferevent_get_output(destination)) >= ClientSession.outputHighWater {
            bufferevent_disable(fromClient ? client : upstream.bev, Int16(EV_READ))
        }
    }

    /// Passes each side's EOF on once everything before it has been written, and ends the tunnel
    /// when both directions are closed.
    func finishHalfClose() {
        guard state == .tunneling, let upstream else { return }
        if clientReadClosed && !upstreamWriteShut && evbuffer_get_length(upstream.output) == 0 {
            upstreamWriteShut = true
            // A FIN under TLS would cut the record stream; a TLS upstream learns of the end when it closes.
            if !upstream.isTLS { shutdown(upstream.fd, Int32(SHUT_WR)) }
        }
        if upstreamReadClosed && !clientWriteShut && evbuffer_get_length(clientOutput) == 0 {
            clientWriteShut = true
            shutdown(bufferevent_getfd(client), Int32(SHUT_WR))
        }
        if clientReadClosed && upstreamReadClosed && clientWriteShut && upstreamWriteShut {
            close()
        }
    }
}
