import Testing
@testable import IPDirectCore

/// The login counters on `/metrics`.
@Suite struct AuthCountersTests {
    @Test func theMetricsPageShowsHashesCacheHitsAndEveryFailureReason() {
        var auth = AuthCounters()
        auth.verifications = 1
        auth.cacheHits = 999
        auth.countFailure(.wrongPassword)
        auth.countFailure(.wrongPassword)
        auth.countFailure(.heldBack)
        let lines = MetricsSnapshot(auth: auth).prometheusText.split(separator: "\n").map(String.init)
        #expect(lines.contains("# TYPE ipdirect_auth_verifications_total counter"))
        #expect(lines.contains("ipdirect_auth_verifications_total 1"))
        #expect(lines.contains("ipdirect_auth_cache_hits_total 999"))
        #expect(lines.contains("ipdirect_auth_failures_total{reason=\"wrong_password\"} 2"))
        #expect(lines.contains("ipdirect_auth_failures_total{reason=\"held_back\"} 1"))
        #expect(lines.contains("ipdirect_auth_failures_total{reason=\"unknown_user\"} 0"))
        #expect(lines.filter { $0.hasPrefix("ipdirect_auth_failures_total{") }.count == AuthFailureReason.allCases.count)
    }
}
