import Glibc
import IPDirectCore

/// Graceful stop: refuse new connections at once, let requests and tunnels in flight finish for up to
/// `[proxy] drain_timeout`, then return so the loops stop and the resolver writes its cache file.
extension Server {
    /// How long the loops get to let go of their listeners before the sockets are closed regardless.
    static let listenerReleaseWaitMillis = 1_000
    /// How often the main thread looks at the loops' progress while it waits.
    static let drainPollMillis = 20

    func drain(signals: ServiceSignals, heartbeat: inout WorkerHeartbeat?) {
        let timeoutMs = config.proxy.drainTimeoutMs
        notifier?.send(.stopping(status: "draining connections for up to \(timeoutMs / 1000) s"))
        let released = Countdown(workers.count)
        for worker in workers {
            worker.mailbox.post {
                worker.stopAccepting()
                released.arrive()
            }
        }
        let stopsBefore = stopSignalsReceived
        _ = wait(for: released, millis: Server.listenerReleaseWaitMillis, signals: signals, heartbeat: &heartbeat)
        // Without a listening socket the kernel refuses new connections (RST) instead of queueing them.
        for socket in workerSockets.joined() { socket.close() }
        Logger.info("event=listeners_closed listen=\(listenAddresses.map(\.description).joined(separator: ","))")

        let started = MonotonicClock.nowMicros()
        let drained = Countdown(workers.count)
        for worker in workers {
            worker.mailbox.post { worker.beginDrain { drained.arrive() } }
        }
        // A second stop signal, even one that came while the listeners were being released, cuts the drain short.
        let finished = stopSignalsReceived == stopsBefore
            && wait(for: drained, millis: timeoutMs, signals: signals, heartbeat: &heartbeat)
        let elapsedMs = (MonotonicClock.nowMicros() - started) / 1000
        if finished {
            Logger.info("event=drained elapsed_ms=\(elapsedMs)")
        } else {
            Logger.warning("event=drain_incomplete elapsed_ms=\(elapsedMs) workers_busy=\(drained.left) reason=\"connections still open are closed\"")
        }
    }

    /// True once `countdown` is done; false when `millis` passed first or a stop signal cut the wait
    /// short (counted in `stopSignalsReceived`; a SIGHUP meanwhile is dropped, and logged). The watchdog
    /// keeps being fed, as long as the loops answer.
    func wait(for countdown: Countdown, millis: Int, signals: ServiceSignals,
                      heartbeat: inout WorkerHeartbeat?) -> Bool {
        let deadline = MonotonicClock.nowMicros() + Int64(millis) * 1000
        while !countdown.isDone {
            let left = Int((deadline - MonotonicClock.nowMicros()) / 1000)
            guard left > 0 else { return false }
            let pause = min(left, Server.drainPollMillis, heartbeat?.millisUntilDue ?? Server.drainPollMillis)
            let received = signals.next(timeoutMillis: max(1, pause))
            heartbeat?.tickIfDue(notifier)
            switch received {
            case .stop(let number)?:
                Logger.warning("event=wait_cut_short signal=\(number)")
                stopSignalsReceived += 1
                return false
            case .reload?:
                // Never lost: the file may have changed again since this reload read it.
                reloadsPending += 1
            case nil:
                break
            }
        }
        return true
    }
}
