extension AdminJSON {
    /// `GET /queries`: `{"enabled":true,"capacity":N,"queries":[{"time":..,"origin":"dns","client":..,"name":..,
    /// "type":"A","source":..,"outcome":"NOERROR","addresses":[..],"elapsed_us":N,"repeats":N,"hijack":false}]}`, newest
    /// first. `hijack` marks names whose system DNS answer shared no address with HTTPDNS's (`compare_system`).
    public static func queries(_ entries: [QueryLogEntry], capacity: Int, hijackedNames: Set<String>) -> String {
        let rows = entries.map { entry in
            var members: [(String, String)] = [
                ("time", JSONText.quoted(Timestamp.rfc3339(unixMillis: entry.unixMillis))),
                ("origin", JSONText.quoted(entry.origin.rawValue)),
                ("client", entry.client.map { JSONText.quoted($0.description) } ?? "null"),
                ("name", JSONText.quoted(entry.name)),
                ("type", JSONText.quoted(entry.type)),
                ("source", JSONText.quoted(entry.source)),
                ("outcome", JSONText.quoted(entry.outcome)),
            ]
            if let detail = entry.detail { members.append(("detail", JSONText.quoted(detail))) }
            members += [
                ("addresses", JSONText.array(entry.addresses.map { JSONText.quoted($0.description) })),
                ("elapsed_us", String(entry.elapsedMicros)),
                ("repeats", String(entry.repeats)),
                ("hijack", hijackedNames.contains(entry.name) ? "true" : "false"),
            ]
            return JSONText.object(members)
        }
        return JSONText.object([("enabled", capacity > 0 ? "true" : "false"), ("capacity", String(capacity)),
                                ("queries", JSONText.array(rows))])
    }
}
