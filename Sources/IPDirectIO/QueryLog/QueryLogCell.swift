import IPDirectCore
import Synchronization

/// One worker's query log behind a lock of its own, like `TrafficMetricsCell`: only that worker writes it
/// and the admin listener reads it when `/queries` is asked, so the lock is uncontended where lookups run.
final class QueryLogCell: Sendable {
    /// `[dns] query_log`, taken at start; 0 builds no entry at all.
    let capacity: Int
    private let ring: Mutex<QueryLogRing>

    init(capacity: Int) {
        self.capacity = capacity
        ring = Mutex(QueryLogRing(capacity: capacity))
    }

    var isOn: Bool { capacity > 0 }

    /// Worded outside the lock, so a `/queries` read holds up the worker's lookups only for a copy.
    var newestFirst: [QueryLogEntry] {
        ring.withLock { $0.newestRecordsFirst }.map(\.entry)
    }

    /// A lookup the proxy made for a request that named a host (IP literals are not lookups), answered at
    /// `now`. Kept as the result itself: it is put into words only if `/queries` is read.
    func recordProxyLookup(_ result: Result<Resolution, ResolveFailure>, host: String, client: SocketAddress?,
                           startedMicros: Int64, now: Int64 = MonotonicClock.nowMicros()) {
        guard isOn else { return }
        if case .success(let resolution) = result, resolution.source == .literal { return }
        let lookup = QueryLogRecord.ProxyLookup(result, name: host, client: client, monotonicMicros: now,
                                                unixMillis: MonotonicClock.wallMillis(), elapsedMicros: now - startedMicros)
        ring.withLock { $0.appendProxyLookup(lookup) }
    }

    /// A query the DNS listener answered, with the addresses its answer held.
    func recordListenerQuery(_ response: DNSResponseMessage, client: SocketAddress, source: String, detail: String?,
                             startedMicros: Int64) {
        guard isOn else { return }
        let addresses = response.answers.compactMap { record -> IPAddress? in
            record.type == DNSType.a || record.type == DNSType.aaaa ? IPAddress(bytes: record.data) : nil
        }
        recordDNS(name: response.question?.name.displayName ?? "-", type: response.question?.type ?? 0, source: source,
                  rcode: response.rcode, detail: detail, addresses: addresses, client: client, startedMicros: startedMicros)
    }

    /// A query the DNS listener answered from an answer template.
    func recordTemplateAnswer(name: String, type: UInt16, source: String, addresses: [IPAddress], client: SocketAddress,
                              startedMicros: Int64) {
        guard isOn else { return }
        recordDNS(name: name, type: type, source: source, rcode: .noError, detail: nil, addresses: addresses,
                  client: client, startedMicros: startedMicros)
    }

    private func recordDNS(name: String, type: UInt16, source: String, rcode: DNSExtendedResponseCode, detail: String?,
                           addresses: [IPAddress], client: SocketAddress, startedMicros: Int64) {
        let now = MonotonicClock.nowMicros()
        append(QueryLogEntry(origin: .dns, monotonicMicros: now, unixMillis: MonotonicClock.wallMillis(), client: client,
                             name: name, type: DNSType.name(type), source: source, outcome: rcode.description,
                             detail: detail, addresses: addresses, elapsedMicros: now - startedMicros))
    }

    private func append(_ entry: QueryLogEntry) {
        ring.withLock { $0.append(entry) }
    }
}
