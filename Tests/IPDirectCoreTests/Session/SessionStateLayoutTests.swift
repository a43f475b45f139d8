import Testing
@testable import IPDirectCore

/// The session state is taken apart and put back at every event: it must hold nothing reference-counted.
@Suite struct SessionStateLayoutTests {
    @Test func theStateAndEveryPayloadAreSinglePlainValues() {
        #expect(_isPOD(SessionState.self))
        #expect(_isPOD(OutboundRequest.self))
        #expect(_isPOD(Forwarding.self))
        #expect(_isPOD(AuthenticationPurpose.self))
    }
}
