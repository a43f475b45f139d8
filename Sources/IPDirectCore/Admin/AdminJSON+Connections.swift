extension AdminJSON {
    /// Bytes a row of `/connections` takes, about: room kept ahead so a long answer is not copied as it grows.
    static let connectionRowBytes = 300

    /// `GET /connections`: `{"total":N,"shown":M,"idle":P,"silent":S,"by_mode":{"http":..},"connections":[{"id":"..",
    /// "client":..,"user":..,"mode":"connect","phase":"tunneling","authority":"a.test:443","sni":..,"original":..,
    /// "upstream":"192.0.2.1:443","rank":1,"attempts":1,"bytes_from_client":N,"bytes_to_client":N,"age_ms":N}]}`,
    /// newest first. The id is a string: it is 64 bits wide, more than a JavaScript number holds exactly.
    /// Written as bytes into one buffer: an answer of 200 rows is the admin thread's largest.
    public static func connections(_ listing: ConnectionListing, now: Int64) -> String {
        String(decoding: connectionBytes(listing, now: now), as: UTF8.self)
    }

    /// `connections` as the bytes the admin listener sends, with the line feed every answer ends with.
    public static func connectionBytes(_ listing: ConnectionListing, now: Int64) -> [UInt8] {
        var out = JSONBuffer(capacity: 200 + listing.rows.count * connectionRowBytes)
        out.raw("{\"total\":")
        out.integer(listing.total)
        out.raw(",\"shown\":")
        out.integer(listing.rows.count)
        out.raw(",\"idle\":")
        out.integer(listing.idle)
        out.raw(",\"silent\":")
        out.integer(listing.silent)
        out.raw(",\"by_mode\":{")
        for (index, mode) in ConnectionRow.Mode.allCases.enumerated() {
            if index > 0 { out.raw(",") }
            out.string(mode.rawValue)
            out.raw(":")
            out.integer(listing.byMode[index])
        }
        out.raw("},\"connections\":[")
        for (index, row) in listing.rows.enumerated() {
            if index > 0 { out.raw(",") }
            append(row, to: &out, now: now)
        }
        out.raw("]}\n")
        return out.bytes
    }

    private static func append(_ row: ConnectionRow, to out: inout JSONBuffer, now: Int64) {
        out.raw("{\"id\":\"")
        out.integer(row.id)
        out.raw("\",\"client\":")
        out.address(row.client)
        out.raw(",\"user\":")
        out.string(row.user)
        out.raw(",\"mode\":")
        out.string(row.mode.rawValue)
        out.raw(",\"phase\":")
        out.string(row.phase.rawValue)
        out.raw(",\"authority\":")
        if let authority = row.authority { out.hostPort(authority.host, authority.port) } else { out.raw("null") }
        out.raw(",\"sni\":")
        out.string(row.serverName)
        out.raw(",\"original\":")
        out.address(row.original)
        out.raw(",\"upstream\":")
        out.string(row.upstream)
        out.raw(",\"rank\":")
        out.integer(row.rank)
        out.raw(",\"attempts\":")
        out.integer(row.attempts)
        out.raw(",\"bytes_from_client\":")
        out.integer(row.bytesFromClient)
        out.raw(",\"bytes_to_client\":")
        out.integer(row.bytesToClient)
        out.raw(",\"age_ms\":")
        out.integer(row.startMicros.map { max(0, now - $0) / 1000 })
        out.raw("}")
    }

    /// `{"closed":true}`: the connection `POST /connections/close` named was closed.
    public static let connectionClosed = JSONText.object([("closed", "true")])
}
