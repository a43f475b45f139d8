// swift-tools-version:6.0
import PackageDescription

/// Regex and the string algorithms built on it (_StringProcessing, _RegexParser) are imported into every
/// module unless told otherwise, and then linked into the daemon although it never runs them: without
/// them its code and data shrink by 1.2 MB and VmRSS at start by about 150 KiB (medians of six starts).
let withoutStringProcessing: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"]),
]

/// Every function in a section of its own, so the linker can place the daemon's start-up code side by side
/// (`startUpOrder`) instead of where each file put it.
let functionSections: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-function-sections"]),
]

/// The I/O module trades Swift's dynamic exclusivity checks for speed: its session and connection
/// objects are owned by one event loop thread, which is what the checks guard. Measured with callgrind
/// on 2,000 pooled keep-alive requests through one worker, the checks cost 2.3k of 54.9k instructions
/// per request (4 %) in IPDirectIO and nothing measurable (11 instructions) in IPDirectCore, which
/// therefore keeps them, static and dynamic, except on the fields of the session's `Exchange` object
/// (`@exclusivity(unchecked)` there saves 2.4k instructions per request).
let eventLoopModuleSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"]),
] + withoutStringProcessing + functionSections


/// The daemon carries the Swift runtime in its binary: loading the shared runtime libraries cost about
/// 2 MiB more resident memory at start (16.8 against 14.8 MiB, the benchmark's configuration with two
/// workers), and the binary then needs only Debian's own libraries.
let staticSwiftRuntime: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib"]),
]

/// The daemon's code is mapped from its file, and each page it runs brings the 64 KiB around it into
/// memory: the 430 KiB of functions start-up runs, spread over 5.7 MB of code, kept 4.5 MiB of it
/// resident. lld lays the functions named in `start-up.order` (scripts/link-order writes it from profiles
/// of start-ups and requests) side by side instead: VmRSS at start 14.8 to 12.9 MiB on the benchmark's
/// configuration (medians of ten starts; HAProxy 14.6). The functions every request runs come first, so a
/// loop's code is a few dozen pages (71 of 4 KiB for the 342 functions a small request runs, against 127
/// when they were spread among the start-up ones). A name the code no longer has is skipped, so a stale list
/// costs memory and instruction-cache misses, not correctness.
let packageDirectory = String(#filePath.prefix(upTo: #filePath.lastIndex(of: "/")!))
let startUpOrder: [LinkerSetting] = [
    .unsafeFlags([
        "-use-ld=lld",
        "-Xlinker", "--symbol-ordering-file=\(packageDirectory)/Sources/ipdirect/start-up.order",
        "-Xlinker", "--no-warn-symbol-ordering",
    ]),
]

/// The release build is optimised from a profile of the request path (LLVM's IR-level profile-guided
/// optimisation): `request-path.profdata` holds how often each branch of each function ran while an instrumented
/// build served bench/callgrind's mix of small requests, bodies and parked clients, and CONNECT tunnels, with and
/// without an access log (`scripts/request-profile` writes it). The compiler then lays each function's hot blocks
/// together and inlines by how often calls run, and the cold blocks of hot functions go to sections of their own
/// (`-enable-split-machine-functions`): a request then runs through fewer cache lines of code. Measured with callgrind's cache simulation per new-connection
/// request: 26.1k instructions and 1,217 instruction-cache misses without the profile, 23.4k and 706 with it
/// (nginx 26.1k and 605); per keep-alive request 20.6k and 723 against 19.2k and 369 (nginx 23.1k and 537).
/// A function the profile has no counts for, or whose code changed since the profile was taken, is built as it
/// would be without one; `scripts/request-profile --check` says how much of the profile still matches.
/// `IPDIRECT_PROFILE=generate` builds the instrumented binary instead.
let requestProfile = "\(packageDirectory)/Sources/ipdirect/request-path.profdata"
let instrumented = Context.environment["IPDIRECT_PROFILE"] == "generate"
/// A function private to a file is named in the profile after its object file: by the file's name alone, not
/// its path, so that a build in another folder (a fresh clone, the Debian package's) finds its counts.
let profileNames = ["-Xllvm", "-static-func-full-module-prefix=false"]
let profileGuided: [SwiftSetting] = instrumented
    ? [.unsafeFlags(["-Xfrontend", "-ir-profile-generate"] + profileNames, .when(configuration: .release))]
    : [.unsafeFlags(["-Xfrontend", "-ir-profile-use=\(requestProfile)",
                     "-Xllvm", "-enable-split-machine-functions"] + profileNames, .when(configuration: .release))]
/// The instrumented binary's counters are written at exit by LLVM's profile runtime.
let profileRuntime: [LinkerSetting] = instrumented
    ? [.unsafeFlags(["-Xclang-linker", "-fprofile-generate"], .when(configuration: .release))]
    : []

let package = Package(
    name: "ipdirect",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "ipdirect", targets: ["ipdirect"]),
    ],
    targets: [
        // libevent, OpenSSL, c-ares, nghttp2 and libcrypt in ONE module: two modules disagree on glibc's fd_set.
        .systemLibrary(
            name: "CEvent",
            pkgConfig: "libevent_openssl",
            providers: [.apt(["libevent-dev", "libssl-dev", "libc-ares-dev", "libnghttp2-dev", "libcrypt-dev"])]
        ),
        // Pure Swift: protocol parsing, configuration, resolution policy. No sockets, no C.
        .target(
            name: "IPDirectCore",
            swiftSettings: withoutStringProcessing + functionSections + profileGuided
        ),
        // Everything that touches libevent, OpenSSL or syscalls.
        .target(
            name: "IPDirectIO",
            dependencies: ["CEvent", "IPDirectCore"],
            swiftSettings: eventLoopModuleSettings + profileGuided
        ),
        .executableTarget(
            name: "ipdirect",
            dependencies: [
                "IPDirectCore",
                "IPDirectIO",
            ],
            exclude: ["start-up.order", "request-path.profdata"],
            swiftSettings: withoutStringProcessing + functionSections + profileGuided,
            linkerSettings: staticSwiftRuntime + startUpOrder + profileRuntime
        ),
        // libFuzzer driver for the parsers of untrusted input; see Tests/fuzz/run.
        .executableTarget(
            name: "IPDirectFuzz",
            dependencies: ["IPDirectCore", "IPDirectIO"]
        ),
        .testTarget(
            name: "IPDirectCoreTests",
            dependencies: ["IPDirectCore"]
        ),
        // What the I/O tests share: a loop driver, loopback ports, scripted servers, a real nginx. Never shipped.
        .target(
            name: "IPDirectTesting",
            dependencies: ["IPDirectIO", "CEvent"],
            path: "Tests/IPDirectTesting"
        ),
        .testTarget(
            name: "IPDirectIOTests",
            dependencies: ["IPDirectIO", "IPDirectCore", "CEvent", "IPDirectTesting"]
        ),
    ]
)
