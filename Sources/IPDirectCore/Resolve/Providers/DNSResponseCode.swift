/// RFC 1035 §4.1.1 and RFC 6895 §2.3 response codes, for messages people can read.
public enum DNSResponseCode {
    /// NOERROR.
    public static let noError = 0
    /// NXDOMAIN: the name does not exist.
    public static let nameError = 3

    private static let names = [0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED"]

    public static func name(of rcode: Int) -> String {
        names[rcode] ?? "RCODE\(rcode)"
    }
}
