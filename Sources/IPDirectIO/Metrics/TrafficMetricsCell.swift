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

/// What the metrics take from one finished exchange: plain values, so that handing them to the locked
/// counters copies no request or record (their strings are retained and released by a copy).
struct ExchangeFigures {
    var method: HTTPMethod
    var status: Int
    var bytesFromClient: UInt64
    var bytesToClient: UInt64
    var resolveMicros: Int64?
    var connectMicros: Int64?
    var firstByteMicros: Int64?
}

extension TrafficMetrics {
    /// Counts one finished exchange of a client session, with the durations it measured.
    mutating func count(_ exchange: ExchangeFigures) {
        countExchange(method: exchange.method, status: exchange.status,
                      bytesFromClient: exchange.bytesFromClient, bytesToClient: exchange.bytesToClient)
        if let micros = exchange.resolveMicros { resolveDuration.observe(micros: micros) }
        if let micros = exchange.connectMicros { connectDuration.observe(micros: micros) }
        if let micros = exchange.firstByteMicros { firstByteDuration.observe(micros: micros) }
    }
}
