/// Time formatting for log lines, kept free of Foundation.
public enum Timestamp {
    /// `2026-11-22T13:48:05.123Z` from milliseconds since the Unix epoch.
    public static func rfc3339(unixMillis: Int64) -> String {
        let millis = Int(unixMillis % 1000)
        let seconds = unixMillis / 1000
        let days = Int(seconds / 86_400)
        let secondOfDay = Int(seconds % 86_400)
        // Civil-from-days (Howard Hinnant's algorithm), valid for the proleptic Gregorian calendar.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return "\(year)-\(pad(month))-\(pad(day))T\(pad(secondOfDay / 3600)):\(pad(secondOfDay / 60 % 60))"
            + ":\(pad(secondOfDay % 60)).\(pad(millis, width: 3))Z"
    }

    /// Microseconds as milliseconds with one decimal, e.g. 1234 -> "1.2".
    public static func millis(_ micros: Int64) -> String {
        let tenths = (micros + 50) / 100
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func pad(_ value: Int, width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
