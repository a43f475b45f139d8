/// The read timeout an upstream connection's last exchange left running on its socket when the pool took the
/// connection, and whether the next exchange may let it run on as its own response timeout rather than set it
/// again (a timer heap update in the loop, once per keep-alive request). The timeout restarted at the last
/// read, just before the pool took the connection, so one kept on a connection reused soon after ends at
/// most that long before a new one would. As with nginx's timers, a difference within a small part of the
/// timeout is not worth setting the timer for.
public struct LeftoverReadTimeout: Sendable, Equatable {
    public let millis: Int
    /// When the pool took the connection (microseconds, monotonic).
    public let pooledAtMicros: Int64

    public init(millis: Int, pooledAtMicros: Int64) {
        self.millis = millis
        self.pooledAtMicros = pooledAtMicros
    }

    /// How much earlier than asked a kept timeout may end: 0.3 s, or 1/64 of a shorter timeout.
    public static func toleranceMicros(millis: Int) -> Int64 {
        min(300_000, Int64(millis) * 1000 / 64)
    }

    /// Whether the leftover can serve as a response timeout of `millis` asked for at `now`.
    public func serves(asResponseTimeout millis: Int, now: Int64) -> Bool {
        millis == self.millis && now - pooledAtMicros <= LeftoverReadTimeout.toleranceMicros(millis: millis)
    }
}
