import Testing
@testable import IPDirectCore

/// The Prometheus text format 0.0.4 as `/metrics` writes it: families, escaping, histograms.
@Suite struct PrometheusTextTests {
    @Test(arguments: [
        (0, "0"), (500, "0.0005"), (1_000, "0.001"), (2_500, "0.0025"), (250_000, "0.25"),
        (1_000_000, "1"), (2_500_000, "2.5"), (10_000_000, "10"), (1_234_567, "1.234567"), (-1_500, "-0.0015"),
    ] as [(Int64, String)])
    func writesMicrosecondsAsExactDecimalSeconds(micros: Int64, text: String) {
        #expect(PrometheusText.seconds(micros: micros) == text)
    }

    @Test func escapesLabelValuesAndHelpText() {
        var page = PrometheusText()
        page.family("x_total", .counter, help: "a \\ b\nc")
        page.sample("x_total", labels: [("reason", "say \"hi\"\\\n")], UInt64(3))
        #expect(page.text == """
            # HELP x_total a \\\\ b\\nc
            # TYPE x_total counter
            x_total{reason="say \\"hi\\"\\\\\\n"} 3

            """)
    }

    @Test func histogramBucketsAreCumulativeAndEndWithInfinity() {
        var histogram = LatencyHistogram()
        histogram.observe(micros: 400)        // first bucket
        histogram.observe(micros: 500)        // on the bound: still the first bucket (le is inclusive)
        histogram.observe(micros: 30_000)     // 0.05
        histogram.observe(micros: 60_000_000) // beyond the last bound
        var page = PrometheusText()
        page.histogram("h_seconds", histogram)
        let lines = page.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "h_seconds_bucket{le=\"0.0005\"} 2")
        #expect(lines.contains("h_seconds_bucket{le=\"0.025\"} 2"))
        #expect(lines.contains("h_seconds_bucket{le=\"0.05\"} 3"))
        #expect(lines.contains("h_seconds_bucket{le=\"10\"} 3"))
        #expect(lines.contains("h_seconds_bucket{le=\"+Inf\"} 4"))
        #expect(lines.contains("h_seconds_sum 60.0309"))
        #expect(lines.last == "h_seconds_count 4")
        #expect(lines.count == LatencyHistogram.boundsMicros.count + 3)
    }

    @Test func negativeDurationsCountAsZero() {
        var histogram = LatencyHistogram()
        histogram.observe(micros: -5)
        #expect(histogram.sumMicros == 0)
        #expect(histogram.bucketCounts.first == 1)
    }

    @Test func workersAddUpBucketByBucket() {
        var first = TrafficMetrics()
        first.countExchange(method: "GET", status: 200, bytesFromClient: 10, bytesToClient: 100)
        first.resolveDuration.observe(micros: 700)
        first.countUpstreamFailure(.connectionRefused)
        var second = TrafficMetrics()
        second.countExchange(method: "GET", status: 200, bytesFromClient: 5, bytesToClient: 50)
        second.countExchange(method: "CONNECT", status: 403, bytesFromClient: 1, bytesToClient: 2)
        second.resolveDuration.observe(micros: 700)
        second.countUpstreamFailure(.tlsCertificateError)
        first.countTransparent(sniffed: .http, outcome: .original)
        second.countTransparent(sniffed: .http, outcome: .original)
        second.countTransparent(sniffed: .dns, outcome: .resolved)
        first.add(second)
        #expect(first.requests[.init(method: "GET", status: 200)] == 2)
        #expect(first.requests[.init(method: "CONNECT", status: 403)] == 1)
        #expect(first.bytesFromClients == 16)
        #expect(first.bytesToClients == 152)
        #expect(first.resolveDuration.count == 2)
        #expect(first.resolveDuration.bucketCounts[1] == 2)
        #expect(first.connectFailures == ["connection_refused": 1])
        #expect(first.tlsFailures == ["tls_certificate_error": 1])
        #expect(first.transparentConnections[.http, .original] == 2)
        #expect(first.transparentConnections[.dns, .resolved] == 1)
        #expect(first.transparentConnections.counted.map(\.value) == [2, 1])
    }

    @Test func snapshotPageHasOneHelpAndTypePerFamilyAndThePrefixedSeries() {
        var traffic = TrafficMetrics()
        traffic.countExchange(method: "GET", status: 200, bytesFromClient: 80, bytesToClient: 900)
        traffic.connectionsActive = 3
        traffic.countUpstreamFailure(.connectionTimeout)
        traffic.countTransparent(sniffed: .tls, outcome: .resolved)
        traffic.countTransparent(sniffed: .tls, outcome: .resolved)
        traffic.countTransparent(sniffed: .none, outcome: .loop)
        var sources = SourceQueryCounters()
        sources.count(.answered, source: "google")
        sources.count(.timeout, source: "google")
        sources.countDoTConnectionOpened(provider: "alidns-dot")
        sources.countDoTConnectionOpened(provider: "alidns-dot")
        var cache = ResolverCacheCounters()
        cache.hits = 7
        cache.staleServes = 2
        let text = MetricsSnapshot(traffic: traffic, cache: cache, cacheEntries: 5, sources: sources).prometheusText
        let lines = text.split(separator: "\n").map(String.init)
        for line in lines {
            #expect(line.hasPrefix("# HELP ipdirect_") || line.hasPrefix("# TYPE ipdirect_") || line.hasPrefix("ipdirect_"), "\(line)")
        }
        let typed = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(Set(typed).count == typed.count, "a family is declared twice")
        #expect(lines.filter { $0.hasPrefix("# HELP ") }.count == typed.count)
        #expect(lines.contains("ipdirect_requests_total{method=\"GET\",status=\"200\"} 1"))
        #expect(lines.contains("ipdirect_client_connections_active 3"))
        #expect(lines.contains("ipdirect_dot_connections_opened_total{provider=\"alidns-dot\"} 2"))
        #expect(lines.contains("ipdirect_client_received_bytes_total 80"))
        #expect(lines.contains("ipdirect_client_sent_bytes_total 900"))
        #expect(lines.contains("ipdirect_upstream_connect_failures_total{reason=\"connection_timeout\"} 1"))
        #expect(lines.contains("ipdirect_transparent_connections_total{sniffed=\"tls\",outcome=\"resolved\"} 2"))
        #expect(lines.contains("ipdirect_transparent_connections_total{sniffed=\"none\",outcome=\"loop\"} 1"))
        #expect(lines.contains("ipdirect_resolver_queries_total{source=\"google\",outcome=\"answered\"} 1"))
        #expect(lines.contains("ipdirect_resolver_queries_total{source=\"google\",outcome=\"timeout\"} 1"))
        #expect(lines.contains("ipdirect_resolver_cache_hits_total 7"))
        #expect(lines.contains("ipdirect_resolver_cache_stale_serves_total 2"))
        #expect(lines.contains("ipdirect_resolver_cache_entries 5"))
        #expect(lines.contains("# TYPE ipdirect_resolve_duration_seconds histogram"))
        #expect(lines.contains("ipdirect_upstream_first_byte_duration_seconds_bucket{le=\"+Inf\"} 0"))
        #expect(text.hasSuffix("\n"))
    }
}
