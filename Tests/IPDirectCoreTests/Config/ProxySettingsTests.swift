import Testing
@testable import IPDirectCore

/// What the `[proxy]` limits add up to: descriptors the daemon may need, and each worker's pipes.
@Suite struct ProxySettingsTests {
    @Test func descriptorsCountTwoSocketsPerConnectionAndTwoPerPipe() {
        var settings = ProxySettings()
        settings.maxConnections = 50_000
        settings.maxPipes = 1_000
        #expect(settings.descriptorsNeeded == 50_000 * 2 + 1_000 * 2 + ProxySettings.descriptorReserve)
    }

    @Test func theDefaultsFitSystemdsDescriptorLimitWithFiftyThousandTunnels() {
        var settings = ProxySettings()
        settings.maxConnections = 50_000
        // systemd/ipdirect.service sets LimitNOFILE=1048576.
        #expect(settings.descriptorsNeeded <= 1_048_576)
    }

    @Test(arguments: [(2_500, 2, 1_250), (2_500, 3, 833), (1, 4, 1), (0, 2, 0)])
    func pipesAreSharedOutAmongTheWorkers(maxPipes: Int, workers: Int, each: Int) {
        var settings = ProxySettings()
        settings.maxPipes = maxPipes
        #expect(settings.pipesPerWorker(workerCount: workers) == each)
    }
}
