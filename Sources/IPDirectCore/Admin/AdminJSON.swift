/// The JSON bodies of the admin API: the cache dump, and answers in the schema of Google's JSON DNS
/// API (`Status`, `Question`, `Answer` with `TTL`), which tools that cannot use a proxy already read.
public enum AdminJSON {
    /// DNS RCODEs (RFC 1035 §4.1.1) used as `Status`.
    static let noError = 0
    static let serverFailure = 2
    static let nameError = 3

    /// `{"entries":[{"name":..,"type":"A","addresses":[..],"ttl_left":N,"source":..,"negative":false}],"size":N}`.
    /// `ttl_left` is negative for an answer served stale.
    public static func cacheDump(_ rows: [CacheSnapshotRow]) -> String {
        let entries = rows.map { row in
            JSONText.object([
                ("name", JSONText.quoted(row.name)),
                ("type", JSONText.quoted(row.family.recordTypeName)),
                ("addresses", JSONText.array(row.addresses.map { JSONText.quoted($0.description) })),
                ("ttl_left", String(row.secondsLeft)),
                ("source", JSONText.quoted(row.source)),
                ("negative", row.addresses.isEmpty ? "true" : "false"),
            ])
        }
        return JSONText.object([("entries", JSONText.array(entries)), ("size", String(rows.count))])
    }

    /// `{"flushed":N}`: how many cache entries a flush removed.
    public static func flushed(_ count: Int) -> String {
        JSONText.object([("flushed", String(count))])
    }

    /// A `/resolve` answer in Google's schema. Addresses of the other family are left out; the TTL is
    /// what is left of the cached answer (0 when nothing is cached, as for `[hosts]` and literals).
    /// A failure is NXDOMAIN (3) when the name does not exist, SERVFAIL (2) otherwise, with a `Comment`.
    public static func dnsAnswer(name: String, family: AddressFamily,
                                 result: Result<Resolution, ResolveFailure>) -> String {
        let fqdn = name.hasSuffix(".") ? name : name + "."
        let question = JSONText.array([JSONText.object([("name", JSONText.quoted(fqdn)),
                                                        ("type", String(family.recordType))])])
        var members: [(String, String)] = []
        switch result {
        case .success(let resolution):
            let ttl = max(0, resolution.secondsLeft[family] ?? 0)
            let answers = resolution.addresses.filter { AddressFamily(of: $0) == family }.map { address in
                JSONText.object([
                    ("name", JSONText.quoted(fqdn)),
                    ("type", String(family.recordType)),
                    ("TTL", String(ttl)),
                    ("data", JSONText.quoted(address.description)),
                ])
            }
            members = header(status: noError) + [("Question", question)]
            if !answers.isEmpty { members.append(("Answer", JSONText.array(answers))) }
            members.append(("Comment", JSONText.quoted("source=\(resolution.sourceLabel)")))
        case .failure(let failure):
            let status = failure.reason == .notFound ? nameError : serverFailure
            members = header(status: status) + [("Question", question), ("Comment", JSONText.quoted(failure.description))]
        }
        return JSONText.object(members)
    }

    /// The flags Google's API returns: not truncated, recursion desired and available, not validated.
    private static func header(status: Int) -> [(String, String)] {
        [("Status", String(status)), ("TC", "false"), ("RD", "true"), ("RA", "true"), ("AD", "false"), ("CD", "false")]
    }
}
