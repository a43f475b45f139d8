import Testing
import IPDirectCore
@testable import IPDirectIO

@Suite struct TLSFailureTests {
    @Test func hostnameMismatchNamesWhatTheCertificateCarriesAndHintsAtSNI() {
        let failure = TLSFailure(.hostnameMismatch(expected: "a.test", certificateNames: ["b.test", "127.0.0.9"]))
        #expect(failure.description.contains("hostname mismatch"))
        #expect(failure.description.contains("b.test, 127.0.0.9"))
        #expect(failure.description.contains("SNI"))
    }

    @Test func certificateProblemsAreCertificateErrorsAndTheRestProtocolErrors() {
        let address = SocketAddress(ip: .v4(0x7F00_0001), port: 443)
        #expect(TLSFailure(.certificateExpired).proxyError(host: "a.test", address: address).kind == .tlsCertificateError)
        #expect(TLSFailure(.pinMismatch(serverPins: [])).proxyError(host: "a.test", address: address).kind == .tlsCertificateError)
        let protocolError = TLSFailure(.handshakeFailed("wrong version number")).proxyError(host: "a.test", address: address)
        #expect(protocolError.kind == .tlsProtocolError)
        #expect(protocolError.status == 502)
        #expect(protocolError.details.contains("a.test") && protocolError.details.contains("127.0.0.1:443"))
    }
}
