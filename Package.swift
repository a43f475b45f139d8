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
            swiftSettings: withoutStringProcessing + functionSections
        ),
        // Everything that touches libevent, OpenSSL or syscalls.
        .target(
            name: "IPDirectIO",
            dependencies: ["CEvent", "IPDirectCore"],
            swiftSettings: eventLoopModuleSettings
        ),
        .executableTarget(
            name: "ipdirect",
            dependencies: [
                "IPDirectCore",
                "IPDirectIO",
            ],
            exclude: ["start-up.order"],
            swiftSettings: withoutStringProcessing + functionSections,
            linkerSettings: staticSwiftRuntime + startUpOrder
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
