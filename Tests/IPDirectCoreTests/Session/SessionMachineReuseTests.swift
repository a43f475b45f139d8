import Testing
@testable import IPDirectCore

/// A new machine given the storage of one whose connection ended starts as a new machine does, with only the
/// room the other grew: no action, head byte, login or request of the connection before, and no head storage
/// grown huge.
@Suite struct SessionMachineReuseTests {
    /// A machine that has served an exchange for a logged-in user, its actions performed.
    static func servedMachine(requestFields: String = "") -> SessionMachine {
        var script = SessionScript(requiresAuthentication: true)
        _ = script.run([.start, .head(Heads.get(fields: Heads.aliceCredentials + requestFields)),
                        .credentialsChecked("alice", refusal: nil), .resolved(["203.0.113.7"]), .pooled,
                        .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()),
                        .responsePumped(.complete, moved: 5)])
        return script.machine
    }

    /// Each stored property of `value` by name, as text, but for those named in `skipped`.
    static func properties(of value: Any, skipping skipped: Set<String> = []) -> [String: String] {
        var properties: [String: String] = [:]
        for child in Mirror(reflecting: value).children {
            guard let label = child.label, !skipped.contains(label) else { continue }
            properties[label] = String(describing: child.value)
        }
        return properties
    }

    @Test func aMachineGivenAnEndedMachinesStorageStartsAsANewOne() {
        var ended = Self.servedMachine()
        #expect(ended.request.user == "alice")
        let grownActionCapacity = ended.actions.capacity
        let rules = ended.rules
        var reused = SessionMachine(rules: rules, requiresAuthentication: true)
        reused.reuseStorage(of: &ended)
        let fresh = SessionMachine(rules: rules, requiresAuthentication: true)
        #expect(Self.properties(of: reused, skipping: ["actions", "payloads"])
                == Self.properties(of: fresh, skipping: ["actions", "payloads"]))
        #expect(Self.properties(of: reused.payloads, skipping: ["requestHead", "responseHead"])
                == Self.properties(of: fresh.payloads, skipping: ["requestHead", "responseHead"]))
        #expect(reused.actions.isEmpty && reused.actions.capacity == grownActionCapacity)
        #expect(reused.payloads.requestHead.isEmpty && reused.payloads.requestHead.capacity > 0)
        #expect(reused.payloads.responseHead.isEmpty && reused.payloads.responseHead.capacity > 0)
        #expect(ended.actions.capacity == 0 && ended.payloads.requestHead.capacity == 0
                && ended.payloads.responseHead.capacity == 0, "the storage moved rather than being shared")
    }

    @Test func aReusedMachineAsksForCredentialsAgain() {
        var ended = Self.servedMachine()
        var script = SessionScript(requiresAuthentication: true)
        script.machine.reuseStorage(of: &ended)
        let actions = script.all([.start, .head(Heads.get())])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 407 "))
        #expect(script.machine.request.user == nil)
    }

    @Test func headStorageGrownPastTheLimitIsNotHandedOn() {
        let large = "X-Large: " + String(repeating: "a", count: SessionMachine.maxReusedHeadBytes) + "\r\n"
        var ended = Self.servedMachine(requestFields: large)
        #expect(ended.payloads.requestHead.capacity > SessionMachine.maxReusedHeadBytes)
        var reused = SessionMachine(rules: ended.rules)
        reused.reuseStorage(of: &ended)
        #expect(reused.payloads.requestHead.capacity == 0)
        #expect(reused.payloads.responseHead.capacity > 0)
    }
}
