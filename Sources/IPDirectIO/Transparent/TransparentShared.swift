/// What transparent mode's workers share: the DNS listener's names by address, and the connections the daemon
/// itself opened lately (the loop check).
final class TransparentShared: Sendable {
    let answeredNames = AnsweredNames()
    let ownConnections = OwnUpstreamConnections()

    /// The name under which systemd hands over the transparent listener's socket (`FileDescriptorName=`).
    static let handedName = "transparent"
}
