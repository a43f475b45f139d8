import IPDirectCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Invariant checks that must hold for every input. A broken invariant aborts, which libFuzzer reports
/// as a crash and saves as a reproducer, exactly like a memory error caught by the sanitizer.
enum FuzzCheck {
    /// Aborts with `message` unless `condition` holds. Unlike `precondition`, the message is printed in
    /// optimized builds too, so the fuzz log says which promise broke.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if condition { return }
        fputs("invariant broken: \(message())\n", stderr)
        abort()
    }

    static func requireInBounds(_ range: Range<Int>, _ bound: Int, _ what: String) {
        require(range.lowerBound >= 0 && range.upperBound <= bound, "\(what) \(range) outside 0..<\(bound)")
    }

    /// Reasons go to clients and logs: one short line of printable ASCII.
    static func requireUsable(_ error: HTTPParseError, statuses: Set<Int>) {
        require(statuses.contains(error.status), "unexpected status in \(error)")
        require(!error.reason.isEmpty, "empty reason")
        require(error.reason.utf8.allSatisfy { $0 >= UInt8(ascii: " ") && $0 <= UInt8(ascii: "~") },
                "reason not printable ASCII: \(error.reason)")
    }

    /// Runs `body` on a copy of `bytes` in an allocation of exactly that size, so reading one byte past
    /// the end is a heap overflow the address sanitizer reports.
    static func withExactCopy<T>(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { copy.deallocate() }
        copy.copyMemory(from: bytes)
        return body(UnsafeRawBufferPointer(copy))
    }
}
