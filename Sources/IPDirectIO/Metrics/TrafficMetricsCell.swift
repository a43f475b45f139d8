import IPDirectCore
import Synchronization

/// One worker's `TrafficMetrics` behind a lock of its own. Only that worker writes it and the admin
/// listener reads it once per scrape, so the lock is uncontended on the request path; there is no
/// lock that all workers share.
final class TrafficMetricsCell: Sendable {
    private let metrics = Mutex(TrafficMetrics())

    init() {}

    func update(_ change: (inout TrafficMetrics) -> Void) {
        metrics.withLock { change(&$0) }
    }

    var snapshot: TrafficMetrics {
        metrics.withLock { $0 }
    }
}

extension TrafficMetrics {
    /// Counts one finished exchange of a client session, with the durations it measured.
    mutating func count(_ exchange: Exchange) {
        countExchange(method: exchange.methodKind.description, status: exchange.status,
                      bytesFromClient: exchange.bytesFromClient, bytesToClient: exchange.bytesToClient)
        if exchange.resolveFinished { resolveDuration.observe(micros: exchange.resolveMicros) }
        if exchange.connectFinished { connectDuration.observe(micros: exchange.connectMicros) }
        if let firstByte = exchange.firstByteMicros { firstByteDuration.observe(micros: firstByte) }
    }
}
