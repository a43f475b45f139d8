import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO

@Suite struct CacheFileStoreTests {
    func temporaryDirectory() -> String {
        var template = Array("/tmp/ipdirect-cache-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    func names(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var found: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { found.append(name) }
        }
        return found.sorted()
    }

    @Test func writtenEntriesLoadBackAndNoTemporaryFileRemains() throws {
        let directory = temporaryDirectory()
        let path = directory + "/resolver.cache"
        let settings = ResolverCacheSettings()
        var cache = ResolverCache(settings: settings)
        let now = ResolverService.nowMillis()
        cache.insert([IPAddress("192.0.2.7")!], ttl: 300, for: "kept.test", family: .v4, source: "google", now: now)
        let store = CacheFileStore(path: path, writable: true)
        store.write(cache.serialized(now: now, unixTimeMillis: MonotonicClock.wallMillis()))
        #expect(names(in: directory) == ["resolver.cache"])
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let loaded = store.load(settings: settings)
        #expect(loaded.entries.count == 1)
        #expect(loaded.entries.first?.key == ResolverCacheKey(name: "kept.test", family: .v4))
        #expect(loaded.entries.first?.answer.addresses == [IPAddress("192.0.2.7")!])
        #expect(loaded.entries.first?.answer.source == "google")
    }

    @Test func aMissingFileIsAnEmptyCache() {
        let store = CacheFileStore(path: temporaryDirectory() + "/absent.cache", writable: true)
        #expect(store.load(settings: ResolverCacheSettings()).entries.isEmpty)
    }

    @Test func aReplacedFileIsSwappedWholeNotAppended() {
        let path = temporaryDirectory() + "/resolver.cache"
        let store = CacheFileStore(path: path, writable: true)
        store.write(Array("old contents that are longer than the new ones\n".utf8))
        let settings = ResolverCacheSettings()
        let cache = ResolverCache(settings: settings)
        let fresh = cache.serialized(now: 0, unixTimeMillis: 0)
        store.write(fresh)
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        #expect(Array(buffer.prefix(count)) == fresh)
    }
}
