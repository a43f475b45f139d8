import IPDirectCore
import IPDirectIO

/// What the RFC 8484 answer reader promises for any bytes a DoH server (or an attacker in its place) sends:
/// no crash, and an accepted answer holds only addresses of the type asked, within the limits.
enum DNSAnswerInvariants {
    /// The name of the recorded seeds in Tests/fuzz/corpus (dns-answer-*).
    static let askedName = "www.example.test"

    static func check(_ bytes: UnsafeRawBufferPointer) {
        let message = Array(bytes)
        for type in DNSRecordType.allCases {
            guard case .success(.addresses(let addresses, _)) = DNSAnswer.parse(message, askedName: askedName, type: type)
            else { continue }
            FuzzCheck.require(!addresses.isEmpty, "an address answer without addresses")
            FuzzCheck.require(addresses.count <= DNSAnswer.maximumAddresses, "\(addresses.count) addresses, over the limit")
            let family: AddressFamily = type == .a ? .v4 : .v6
            for address in addresses {
                FuzzCheck.require(family.contains(address), "\(address) in an answer for \(type)")
            }
        }
    }
}
