import IPDirectCore
import Synchronization

/// The name the DNS listener last answered each client with each address, while that answer's TTL lasts,
/// shared by every worker: a redirected connection whose first bytes name nothing (no SNI, not HTTP) most
/// likely meant the name its own client asked for (mihomo's and sing-box's reverse mapping, without their fake
/// addresses). Kept per client, so that no client can choose where another's connections go by asking for a
/// name of its own that resolves to the same address. Kept only while transparent mode is on, in
/// `stripeCount` bounded tables behind their own locks.
final class AnsweredNames: Sendable {
    /// Who asked, as the transparent listener can tell it again: this machine's programs, whose queries come
    /// over loopback and whose redirected connections arrive on a loopback address, count as one client.
    enum Asker: Hashable, Sendable {
        case thisMachine
        case remote(IPAddress)

        /// The asker of a DNS query from `client`.
        init(queryFrom client: IPAddress) {
            let client = client.unmapped
            self = client.isLoopbackAddress ? .thisMachine : .remote(client)
        }

        /// The asker of a redirected connection from `peer` that arrived on `local`: netfilter's `redirect`
        /// sends a locally made connection to loopback, a forwarded one to the incoming interface's address.
        init(connectionFrom peer: IPAddress, arrivedOn local: IPAddress) {
            self = local.unmapped.isLoopbackAddress ? .thisMachine : .remote(peer.unmapped)
        }
    }

    private struct Key: Hashable {
        let asker: Asker
        let address: IPAddress
    }

    private struct Answer {
        let name: String
        let expiresMicros: Int64
    }

    private final class Stripe: Sendable {
        let table = Mutex([Key: Answer]())
    }

    static let stripeCount = 16
    /// Answers kept per stripe; a full stripe starts again empty, which loses only hints.
    static let stripeCapacity = 4_096

    private let stripes = (0..<AnsweredNames.stripeCount).map { _ in Stripe() }

    private func stripe(for address: IPAddress) -> Stripe {
        stripes[Int(UInt(bitPattern: address.hashValue) % UInt(Self.stripeCount))]
    }

    /// The listener answered `asker` `name` with `addresses`, valid for `ttlSeconds` from `now`.
    func answered(_ asker: Asker, _ name: String, with addresses: [IPAddress], ttlSeconds: Int, now: Int64) {
        guard ttlSeconds > 0 else { return }
        let answer = Answer(name: name, expiresMicros: now + Int64(ttlSeconds) * 1_000_000)
        for address in addresses {
            let key = Key(asker: asker, address: address.unmapped)
            stripe(for: key.address).table.withLock { table in
                if table.count >= Self.stripeCapacity && table[key] == nil { table.removeAll(keepingCapacity: true) }
                table[key] = answer
            }
        }
    }

    /// The name last answered to `asker` with `address`, if that answer is still fresh at `now`.
    func name(for address: IPAddress, askedBy asker: Asker, now: Int64) -> String? {
        let key = Key(asker: asker, address: address.unmapped)
        let answer = stripe(for: key.address).table.withLock { $0[key] }
        guard let answer, answer.expiresMicros > now else { return nil }
        return answer.name
    }
}
