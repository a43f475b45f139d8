/// Durations counted into fixed buckets, Prometheus-style: a plain value a worker updates under its own
/// lock and the admin listener adds up across workers. Bounds never change at run time, so two
/// histograms always add bucket by bucket.
public struct LatencyHistogram: Sendable, Equatable {
    /// Upper bounds in microseconds, from half a millisecond (a cached lookup, a loopback connect) to ten
    /// seconds (beyond any sane connect timeout); anything slower lands in the implicit `+Inf` bucket.
    public static let boundsMicros: [Int64] = [
        500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
        1_000_000, 2_500_000, 5_000_000, 10_000_000,
    ]

    /// Observations per bucket, not cumulative; the last element is the `+Inf` bucket.
    public private(set) var bucketCounts = [UInt64](repeating: 0, count: boundsMicros.count + 1)
    public private(set) var sumMicros: Int64 = 0
    public private(set) var count: UInt64 = 0

    public init() {}

    /// Counts one duration; negative durations (a clock that stepped) count as zero.
    public mutating func observe(micros: Int64) {
        let duration = max(0, micros)
        var index = Self.boundsMicros.count
        for (candidate, bound) in Self.boundsMicros.enumerated() where duration <= bound {
            index = candidate
            break
        }
        bucketCounts[index] += 1
        sumMicros += duration
        count += 1
    }

    /// Adds another histogram's observations to these.
    public mutating func add(_ other: LatencyHistogram) {
        for index in bucketCounts.indices { bucketCounts[index] += other.bucketCounts[index] }
        sumMicros += other.sumMicros
        count += other.count
    }

    /// `(upper bound in microseconds or nil for +Inf, observations at or below it)`, as the `_bucket`
    /// series of the text format wants them: cumulative.
    public var cumulativeBuckets: [(boundMicros: Int64?, count: UInt64)] {
        var running: UInt64 = 0
        return bucketCounts.enumerated().map { index, bucketCount in
            running += bucketCount
            return (index < Self.boundsMicros.count ? Self.boundsMicros[index] : nil, running)
        }
    }
}
