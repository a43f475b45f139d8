import IPDirectCore

/// A login waiting for crypt(3); `cancel()` it when the session closes, and it is never answered.
typealias CredentialHandle = PendingAnswer<CredentialCheck>

/// Where the crypt thread sends the answer for one waiting login, and who asked (for the slow-down and
/// the log).
struct CredentialWaiter {
    let mailbox: LoopMailbox
    let handle: CredentialHandle
    let client: IPAddress
    let user: String

    func answer(_ check: CredentialCheck) {
        let handle = self.handle
        mailbox.post { handle.deliver(check) }
    }
}
