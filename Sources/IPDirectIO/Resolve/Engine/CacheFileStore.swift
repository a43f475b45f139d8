import Glibc
import IPDirectCore

/// Reads and writes the resolver's `cache_file`. Writes go to a temporary file in the same directory that
/// is then renamed over the old one, so a crash mid-write never leaves a torn cache behind.
struct CacheFileStore {
    let path: String
    /// False for `ipdirect resolve`, which reads the daemon's cache but must not rewrite it.
    let writable: Bool

    /// Cache files are small (tens of bytes per entry); anything larger than this is not one.
    static let maximumBytes = 64 << 20
    /// Owner-only: the file says which names this machine visits.
    static let fileMode: mode_t = 0o600

    /// The entries of the file still inside their stale window; a missing file is an empty cache, a
    /// broken line is logged and skipped.
    func load(settings: ResolverCacheSettings) -> CacheFileContents {
        guard let bytes = read() else { return CacheFileContents() }
        let contents = ResolverCache.load(bytes, now: ResolverService.nowMillis(),
                                          unixTimeMillis: MonotonicClock.wallMillis(), settings: settings)
        for problem in contents.problems.prefix(Self.problemsLogged) {
            Logger.warning("event=cache_file_problem path=\(path) reason=\"\(problem)\"")
        }
        Logger.info("event=cache_file_loaded path=\(path) entries=\(contents.entries.count) expired_dropped=\(contents.expiredCount) problems=\(contents.problems.count)")
        return contents
    }

    /// A broken file logs its first problems only.
    private static let problemsLogged = 10

    func write(_ bytes: [UInt8]) {
        let temporary = "\(path).tmp.\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, Self.fileMode)
        guard fd >= 0 else { return report("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                report("cannot write \(temporary)")
                close(fd)
                unlink(temporary)
                return
            }
            written += count
        }
        // The data must be on disk before the rename makes it the cache file.
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            report("cannot replace \(path)")
            unlink(temporary)
            return
        }
        Logger.debug("event=cache_file_written path=\(path) bytes=\(bytes.count)")
    }

    private func read() -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno != ENOENT { report("cannot open \(path)") }
            return nil
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= Self.maximumBytes {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                report("cannot read \(path)")
                return nil
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
        Logger.warning("event=cache_file_problem path=\(path) reason=\"larger than \(Self.maximumBytes) bytes; ignored\"")
        return nil
    }

    private func report(_ what: String) {
        Logger.warning("event=cache_file_error reason=\"\(what): \(String(cString: strerror(errno)))\"")
    }
}
