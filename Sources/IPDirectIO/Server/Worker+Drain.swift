import CEvent

/// Graceful stop, run on the worker's own loop: stop accepting, close connections that sit idle between
/// requests, and let requests and tunnels in flight finish (the main thread bounds how long).
extension Worker {
    /// Frees this loop's listeners. The listening sockets themselves are closed by the main thread once
    /// every loop has let go of them, so no loop watches a closed descriptor.
    func stopAccepting() {
        acceptRetry?.cancel()
        for listener in listeners { listener.close() }
        listeners = []
    }

    /// From now on a finished exchange closes its connection; `finished` runs on this loop once the last
    /// session has ended (at once when none is open).
    func beginDrain(finished: @escaping () -> Void) {
        isDraining = true
        drainFinished = finished
        var closedIdle = 0
        for session in sessions.all where session.drain() { closedIdle += 1 }
        closedIdle += parkedClients.drain()
        closedIdle += drainSilentClients()
        Logger.info("worker=\(index) event=draining closed_idle=\(closedIdle) in_flight=\(sessions.count)")
        reportIfDrained()
    }

    func reportIfDrained() {
        guard sessions.isEmpty, parkedClients.count == 0, silentClients.isEmpty, let finished = drainFinished else { return }
        drainFinished = nil
        finished()
    }
}
