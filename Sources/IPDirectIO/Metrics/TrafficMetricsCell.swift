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
    mutating func count(_ request: ProxyRequest, _ record: ExchangeRecord) {
        countExchange(method: request.methodKind, status: record.status,
                      bytesFromClient: record.bytesFromClient, bytesToClient: record.bytesToClient)
        if record.resolveFinished { resolveDuration.observe(micros: record.resolveMicros) }
        if record.connectFinished { connectDuration.observe(micros: record.connectMicros) }
        if let firstByte = record.firstByteMicros { firstByteDuration.observe(micros: firstByte) }
    }
}
