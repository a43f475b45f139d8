import IPDirectCore

/// What the HTTPDNS answer readers promise for any body a provider (or an attacker in its place) sends:
/// no crash, and an accepted answer stays within the limits the cache relies on.
enum ProviderAnswerInvariants {
    static let askedName = "www.example.com"

    static func check(_ bytes: UnsafeRawBufferPointer) {
        let body = Array(bytes)
        _ = JSONReader.parse(body)
        for family in AddressFamily.allCases {
            checkAccepted(JSONDNSFormat.parseAnswer(body, name: askedName, family: family), families: [family])
        }
        let both = AddressFamily.allCases
        checkAccepted(AliyunFormat.parseAnswer(body, name: askedName, families: both), families: both)
        checkAccepted(TencentFormat.parseAnswer(body, families: both), families: both)
    }

    private static func checkAccepted(_ result: Result<ProviderAnswer, ProviderAnswerError>, families: [AddressFamily]) {
        guard case .success(.addresses(let answered)) = result else { return }
        FuzzCheck.require(!answered.isEmpty, "an address answer without addresses")
        FuzzCheck.require(answered.count <= ProviderAnswerLimits.maximumAddressCount,
                          "\(answered.count) addresses, over the limit")
        for entry in answered {
            FuzzCheck.require(families.contains { $0.contains(entry.address) },
                              "\(entry.address) is of a family that was not asked for")
            FuzzCheck.require(entry.ttl <= ProviderAnswerLimits.maximumTTL, "TTL \(entry.ttl) over the limit")
        }
    }
}
