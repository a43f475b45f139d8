// Fuzz driver for the HTTP parsers, the HTTPDNS answer readers, the DoH (DNS wire format) reader, the DNS listener's query reader, its reader of relayed answers, the SOCKS readers and the TLS ClientHello reader. Built normally it replays inputs: `IPDirectFuzz FILE...` runs every
// check on each file (a reproducer saved by libFuzzer, or a corpus). Built with IPDIRECT_FUZZING and
// -sanitize=fuzzer (see Tests/fuzz/run) it hands control to libFuzzer.
import IPDirectCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Every invariant, on one input.
func checkAll(_ bytes: UnsafeRawBufferPointer) {
    FuzzCheck.withExactCopy(bytes) { exact in
        RequestInvariants.check(exact)
        ResponseInvariants.check(exact)
        ChunkedInvariants.check(exact)
        ProviderAnswerInvariants.check(exact)
        DNSAnswerInvariants.check(exact)
        DNSQueryInvariants.check(exact)
        DNSRelayInvariants.check(exact)
        SOCKSInvariants.check(exact)
        ClientHelloInvariants.check(exact)
    }
}

#if IPDIRECT_FUZZING
typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

// SwiftPM links an executable's entry point as `<target>_main`, which libFuzzer's own `main` cannot be,
// so this program keeps its Swift entry point and starts libFuzzer through its documented driver API.
@_extern(c, "LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ target: FuzzTarget) -> Int32

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkAll(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
#else
/// Largest replay input; libFuzzer's inputs are far smaller.
let maxReplayBytes = 1 << 20

func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var buffer = [UInt8](repeating: 0, count: maxReplayBytes)
    let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, maxReplayBytes, file) }
    return Array(buffer[..<count])
}

let paths = CommandLine.arguments.dropFirst()
if paths.isEmpty {
    fputs("usage: IPDirectFuzz FILE...  (replays inputs; see Tests/fuzz/run for fuzzing)\n", stderr)
    exit(2)
}
for path in paths {
    guard let bytes = readFile(path) else {
        fputs("cannot read \(path)\n", stderr)
        exit(1)
    }
    bytes.withUnsafeBytes(checkAll)
}
print("replayed \(paths.count) inputs, all invariants hold")
#endif
