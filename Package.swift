// swift-tools-version:6.0
import PackageDescription

/// Regex and the string algorithms built on it (_StringProcessing, _RegexParser) are imported into every
/// module unless told otherwise, and then linked into the daemon although it never runs them: without
/// them its code and data shrink by 1.2 MB and VmRSS at start by about 150 KiB (medians of six starts).
let withoutStringProcessing: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"]),
]

/// The I/O module trades Swift's dynamic exclusivity checks for speed: its session and connection
/// objects are owned by one event loop thread, which is what the checks guard. Measured with callgrind
/// on 2,000 pooled keep-alive requests through one worker, the checks cost 2.3k of 54.9k instructions
/// per request (4 %) in IPDirectIO and nothing measurable (11 instructions) in IPDirectCore, which
/// therefore keeps them, static and dynamic, except on the fields of the session's `Exchange` object
/// (`@exclusivity(unchecked)` there saves 2.4k instructions per request).
let eventLoopModuleSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"]),
] + withoutStringProcessing


/// The daemon carries the Swift runtime in its binary: loading the shared runtime libraries cost about
/// 2 MiB more resident memory at start (16.8 against 14.8 MiB, the benchmark's configuration with two
/// workers), and the binary then needs only Debian's own libraries.
let staticSwiftRuntime: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib"]),
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
            swiftSettings: withoutStringProcessing
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
            swiftSettings: withoutStringProcessing,
            linkerSettings: staticSwiftRuntime
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
