import Glibc
import Testing
@testable import IPDirectIO

/// libevent's buffer chains (1, 2 and 4 KiB) freed on a thread serve that thread's next chains of the same
/// size; nothing else is kept, and only a few of each size. Each test runs on one thread and leaves the
/// thread's cache empty.
@Suite struct BlockCacheTests {
    @Test(arguments: [1_024, 2_048, 4_096])
    func aFreedChainIsTheNextChainOfItsSize(bytes: Int) throws {
        defer { BlockCache.releaseThreadBlocks() }
        BlockCache.releaseThreadBlocks()
        let block = try #require(BlockCache.allocate(bytes))
        memset(block, 0x5a, bytes)
        BlockCache.free(block)
        #expect(BlockCache.keptBlocks(ofSize: bytes) == 1)
        let again = BlockCache.allocate(bytes)
        #expect(again == block)
        #expect(BlockCache.keptBlocks(ofSize: bytes) == 0)
        BlockCache.free(again)
    }

    @Test func blocksOfOtherSizesGoBackToTheCLibrary() throws {
        defer { BlockCache.releaseThreadBlocks() }
        BlockCache.releaseThreadBlocks()
        for bytes in [16, 1_000, 1_536, 3_000, 8_192] {
            BlockCache.free(try #require(BlockCache.allocate(bytes)))
        }
        #expect([1_024, 2_048, 4_096].map(BlockCache.keptBlocks(ofSize:)) == [0, 0, 0])
    }

    @Test func aBlockFromTheCLibraryMayBeFreedHereAndIsKeptWhenItIsAChainsSize() throws {
        defer { BlockCache.releaseThreadBlocks() }
        BlockCache.releaseThreadBlocks()
        let block = try #require(malloc(2_048))
        BlockCache.free(block)
        #expect(BlockCache.keptBlocks(ofSize: 2_048) == 1)
        #expect(BlockCache.allocate(2_048) == block)
        free(block)
    }

    @Test func onlyAFewOfEachSizeAreKept() throws {
        defer { BlockCache.releaseThreadBlocks() }
        BlockCache.releaseThreadBlocks()
        let blocks = try (0..<(BlockCache.capacityPerSize + 3)).map { _ in try #require(BlockCache.allocate(4_096)) }
        for block in blocks { BlockCache.free(block) }
        #expect(BlockCache.keptBlocks(ofSize: 4_096) == BlockCache.capacityPerSize)
        BlockCache.releaseThreadBlocks()
        #expect(BlockCache.keptBlocks(ofSize: 4_096) == 0)
    }
}
