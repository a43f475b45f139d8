import IPDirectCore

/// The answer `CredentialVerifier.verify` gives at once.
enum CredentialLookup {
    /// Answered now (a cached login, an unknown user, a client held back); the completion is not called.
    case done(CredentialCheck)
    /// crypt(3) runs; the completion is called on the asking loop's thread unless the handle is cancelled.
    case pending(CredentialHandle)
}

/// A worker's view of proxy logins against `auth_file`: answers come back on this worker's loop thread.
/// Built per configuration (`ConnectionSettings`); nil there when no `auth_file` is set.
final class CredentialVerifier {
    private let service: CredentialService
    /// Where the crypt thread sends answers for this loop.
    private let mailbox: LoopMailbox

    init(service: CredentialService, mailbox: LoopMailbox) {
        self.service = service
        self.mailbox = mailbox
    }

    /// Checks `user` and `password` (from `Proxy-Authorization: Basic` or a SOCKS5 login) of a client
    /// connected from `client`.
    func verify(user: String, password: String, client: IPAddress,
                completion: @escaping (CredentialCheck) -> Void) -> CredentialLookup {
        service.verify(user: user, password: password, client: client, replyTo: mailbox, completion: completion)
    }
}
