import Testing
@testable import IPDirectCore

@Test func versionIsSemantic() {
    #expect(IPDirectVersion.string.split(separator: ".").count == 3)
}
