import CEvent
import Glibc
import IPDirectCore

/// CONNECT tunnels and upgraded connections: the buffer relay, and the hand-over to splice once the
/// buffers are empty.
extension ClientSession {
    func startTunnel() {
        guard let upstream else { return }
        tunnelCounted = true
        worker.metrics.update { $0.tunnelsOpened += 1; $0.tunnelsActive += 1 }
        upstream.setReadTimeout(nil)
        client.resumeReading()
        upstream.socket.resumeReading()
        // Bytes that arrived early (a TLS ClientHello right behind CONNECT) go through at once.
        // A tunnel leaves `tunneling` only by closing: a relay that ended it leaves nothing to do.
        relay(from: .client)
        guard !isClosed else { return }
        relay(from: .upstream)
        guard !isClosed else { return }
        perform(machine.tunnelStartRelayed(levels))
    }

    /// Moves what one side sent to the other and tells the machine (also after an EOF, when nothing
    /// may be left to move: the FIN is then passed on).
    func relay(from side: SessionSide) {
        guard let upstream else { return }
        let moved = side == .client ? client.moveInput(to: upstream.socket) : upstream.socket.moveInput(to: client)
        perform(machine.tunnelRelayed(from: side, moved: moved, levels, now: clock.nowMicros))
    }

    /// Hands the sockets to a `SpliceTunnel`, so bulk bytes no longer pass through user space; the machine
    /// decided that it may (`SessionMachine.tunnelMaySplice`).
    func spliceTunnel() {
        guard let upstream else { return }
        let tunnel = SpliceTunnel(base: worker.base, pool: worker.pipes, metrics: worker.metrics,
                                  client: client.fd, upstream: upstream.socket.fd)
        client.pauseReadingAndWriting()
        upstream.socket.pauseReadingAndWriting()
        tunnel.onProgress = { [unowned self] direction, moved, sourceClosed in
            perform(machine.spliceProgressed(direction, moved: moved, sourceClosed: sourceClosed, now: clock.nowMicros))
        }
        tunnel.onFailure = { [unowned self] reason in perform(machine.tunnelFinished(failure: reason)) }
        splice = tunnel
        tunnel.start()
    }
}
