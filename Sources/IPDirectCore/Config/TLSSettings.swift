/// The `[tls]` section: which certificate authorities upstream servers are verified against.
public struct TLSSettings: Sendable, Equatable {
    /// PEM bundle of trusted CAs; nil uses the system bundle.
    public var caFile: String?
    /// Directory of CA certificates named by subject hash (`openssl rehash`); nil for none.
    public var caPath: String?

    public init() {}
}

extension TLSSettings {
    static var configKeys: [ConfigKey<TLSSettings>] {
        [
            ConfigKey("ca_file", \.caFile, .nonEmptyText),
            ConfigKey("ca_path", \.caPath, .nonEmptyText),
        ]
    }
}
