import CEvent

/// libevent's allocations go through a per-thread cache of recently freed buffer chains (`ipd_block_malloc`
/// in CEvent.h). Every use of the C side is in this file: the cache is a static thread-local variable of a
/// header, so each object file that called it directly would have its own.
enum BlockCache {
    /// Routes libevent's allocations through the cache, for every thread from now on. Once per process: the
    /// hooks are globals that libevent reads on every allocation, so they are written only once.
    static func install() {
        _ = installed
    }

    private static let installed: Void = ipd_install_block_cache()

    /// Gives the calling thread's kept blocks back to the C library; a loop thread does so as it ends.
    static func releaseThreadBlocks() {
        ipd_block_cache_release()
    }

    /// What libevent's allocations call once installed.
    static func allocate(_ bytes: Int) -> UnsafeMutableRawPointer? {
        ipd_block_malloc(bytes)
    }

    static func free(_ block: UnsafeMutableRawPointer?) {
        ipd_block_free(block)
    }

    /// How many chains of `bytes` (1, 2 or 4 KiB) the calling thread keeps.
    static func keptBlocks(ofSize bytes: Int) -> Int {
        let sizeClass = ipd_block_class_of_request(bytes)
        return sizeClass < 0 ? 0 : Int(ipd_block_cache_count(sizeClass))
    }

    /// At most this many of each size per thread.
    static var capacityPerSize: Int { IPD_BLOCKS_PER_CLASS }
}
