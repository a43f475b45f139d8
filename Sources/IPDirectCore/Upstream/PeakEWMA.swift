/// A latency estimate that jumps up to a worse sample at once and decays toward better ones over
/// `decayMicros` (Finagle's and Linkerd's peak-EWMA): one slow answer demotes an address straight
/// away, and it earns its place back only through a run of fast ones.
public struct PeakEWMA: Sendable, Equatable {
    /// The estimate, in microseconds.
    public private(set) var cost: Double
    /// When the last sample arrived.
    public private(set) var stampMicros: Int64
    public let decayMicros: Int64

    public init(firstSample micros: Int64, now: Int64, decayMicros: Int64 = PeakEWMA.defaultDecayMicros) {
        cost = Double(max(micros, 0))
        stampMicros = now
        self.decayMicros = decayMicros
    }

    /// Finagle's `decayTime` default: a sample's weight halves in about 7 s.
    public static let defaultDecayMicros: Int64 = 10_000_000

    public mutating func observe(_ micros: Int64, now: Int64) {
        let sample = Double(max(micros, 0))
        if sample > cost {
            cost = sample
        } else {
            let weight = Decay.weight(elapsed: now - stampMicros, over: decayMicros)
            cost = cost * weight + sample * (1 - weight)
        }
        stampMicros = max(stampMicros, now)
    }

    /// The estimate is at least `micros` from now on (an attempt that waited this long unanswered);
    /// a lower value never pulls it down.
    public mutating func raise(to micros: Int64, now: Int64) {
        cost = max(cost, Double(micros))
        stampMicros = max(stampMicros, now)
    }
}

/// `exp(-elapsed / tau)` without libm (Core links nothing): halve the exponent until it is small,
/// take a short Taylor series, square back up.
enum Decay {
    static func weight(elapsed: Int64, over tau: Int64) -> Double {
        guard elapsed > 0, tau > 0 else { return 1 }
        var x = Double(elapsed) / Double(tau)
        // e^-40 is below any difference a score can show.
        guard x < 40 else { return 0 }
        var halvings = 0
        while x > 0.125 {
            x /= 2
            halvings += 1
        }
        var result = 1 - x + x * x / 2 - x * x * x / 6 + x * x * x * x / 24
        for _ in 0..<halvings { result *= result }
        return result
    }
}
