import CEvent
import Glibc
import IPDirectCore

/// The CAs trusted for upstream certificates, parsed once into an X509_STORE that any number of TLS
/// contexts share (the system bundle takes a few MiB once parsed, so a second copy is never loaded for the
/// same settings). Owns one reference to the store; each context that uses it takes its own.
///
/// Lookups in a shared X509_STORE are locked by OpenSSL, so contexts on several threads may verify
/// through it at once.
final class TrustStore {
    let store: OpaquePointer

    /// Trusts `caFile` and/or the hashed directory `caPath`, or, when both are nil, the system's CAs.
    init(caFile: String?, caPath: String?) throws(StartupError) {
        OpenSSLErrorQueue.drainThread()
        guard let store = X509_STORE_new() else {
            throw StartupError("cannot create a certificate store: \(OpenSSLErrorQueue.drainThread() ?? "out of memory")")
        }
        do {
            try TrustStore.load(store, caFile: caFile, caPath: caPath)
        } catch {
            X509_STORE_free(store)
            throw error
        }
        self.store = store
    }

    deinit {
        X509_STORE_free(store)
    }

    /// The `[tls]` section's CAs, the ones the proxy's own connections trust.
    convenience init(_ settings: TLSSettings) throws(StartupError) {
        try self.init(caFile: settings.caFile, caPath: settings.caPath)
    }

    private static func load(_ store: OpaquePointer, caFile: String?, caPath: String?) throws(StartupError) {
        guard caFile != nil || caPath != nil else {
            guard X509_STORE_set_default_paths(store) == 1 else {
                throw StartupError("cannot load the system's trusted CAs: \(OpenSSLErrorQueue.drainThread() ?? "unknown error")")
            }
            return
        }
        if let caPath, !isDirectory(caPath) {
            throw StartupError("tls.ca_path \(caPath) is not a readable directory")
        }
        guard X509_STORE_load_locations(store, caFile, caPath) == 1 else {
            let reason = OpenSSLErrorQueue.drainThread() ?? "unknown error"
            throw StartupError("cannot load trusted CAs from \(caFile.map { "tls.ca_file \($0)" } ?? "tls.ca_path \(caPath!)"): \(reason)")
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        guard let directory = opendir(path) else { return false }
        closedir(directory)
        return true
    }
}
