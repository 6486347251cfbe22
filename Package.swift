// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Built on Linux only (JACK 2 and glibc; see Sources/JackCapture/Support/Platform.swift), so no
// other platform is claimed.
let package = Package(
    name: "jcap",
    products: [
        .library(name: "JackCapture", targets: ["JackCapture"]),
        .executable(name: "jcap", targets: ["jcap"]),
        .executable(name: "jcap-testsignal", targets: ["jcap-testsignal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        // Studio session files (sessions/*.toml).
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The browser remote (`jcap session --remote`): HTTP and WebSocket.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // C interop: one system-library target per C library, each a module map and a shim header.
        .systemLibrary(
            name: "CJack",
            pkgConfig: "jack",
            providers: [.apt(["libjack-jackd2-dev"])]
        ),
        .systemLibrary(
            name: "CSndfile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        .systemLibrary(
            name: "CSamplerate",
            pkgConfig: "samplerate",
            providers: [.apt(["libsamplerate0-dev"])]
        ),
        // OSC over UDP, for the OSC remote and the NSM session-manager client.
        .systemLibrary(
            name: "CLiblo",
            pkgConfig: "liblo",
            providers: [.apt(["liblo-dev"])]
        ),
        // io_uring: a take's O_DIRECT writes to many files go to the kernel in one call.
        .systemLibrary(
            name: "CUring",
            pkgConfig: "liburing",
            providers: [.apt(["liburing-dev"])]
        ),
        // Linux calls glibc hides behind _GNU_SOURCE (sync_file_range(2)); no library to link.
        .systemLibrary(name: "CLinux"),
        // The disk writer's transpose in AVX2, for processors that have it; no library to link.
        .systemLibrary(name: "CSimd"),
        .target(
            name: "JackCapture",
            dependencies: [
                "CJack",
                "CLinux",
                "CSimd",
                "CSndfile",
                "CSamplerate",
                "CUring",
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // Surfaces beyond the terminal, all driving the one control core: the browser remote, OSC
        // and NSM. Apart from the library, so that the library needs neither NIO nor liblo.
        .target(
            name: "JackCaptureRemote",
            dependencies: [
                "JackCapture",
                "CLiblo",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ],
            // The browser remote's page: HTML, CSS and JavaScript as they are (no build step).
            resources: [.copy("Web/Page")]
        ),
        // The test signal (every sample encodes its frame time and channel) and its verifiers:
        // for jcap-testsignal, the tests and the benchmarks, not for recording.
        .target(
            name: "JackCaptureTestSignal",
            dependencies: [
                "JackCapture",
                "CJack",
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        // ThreadSanitizer's options and suppressions, built into every program the tests run, so
        // that a plain `swift test --sanitize=thread` works (tools/tsan/TSanDefaults.c says why).
        .target(
            name: "TSanDefaults",
            path: "tools/tsan"
        ),
        .executableTarget(
            name: "jcap",
            dependencies: [
                "JackCapture",
                "JackCaptureRemote",
                "TSanDefaults",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "jcap-testsignal",
            dependencies: [
                "JackCapture",
                "TSanDefaults",
                "JackCaptureTestSignal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks (tools/bench): the disk writer's throughput without JACK in the way.
        .executableTarget(
            name: "jcap-writer-benchmark",
            dependencies: [
                "JackCapture",
                "JackCaptureTestSignal",
                "CLinux",
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            path: "tools/bench/writer"
        ),
        .testTarget(
            name: "JackCaptureTests",
            dependencies: [
                "JackCapture",
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        .testTarget(
            name: "JackCaptureRemoteTests",
            dependencies: ["JackCapture", "JackCaptureRemote"]
        ),
        .testTarget(
            name: "JackCaptureTestSignalTests",
            dependencies: ["JackCapture", "JackCaptureTestSignal"]
        ),
        .testTarget(
            name: "jcapTests",
            dependencies: ["jcap", "JackCapture"],
            exclude: ["Screens"]
        ),
        // Counts allocations made on one chosen thread from inside the malloc hook; in C because
        // the hook runs inside the allocator and must not allocate or take locks itself.
        .target(
            name: "AllocationProbe",
            path: "Tests/AllocationProbe"
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "JackCapture",
                "JackCaptureTestSignal",
                "AllocationProbe",
                "TSanDefaults",
                "jcap",
                "jcap-testsignal",
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            // The Python scripts the NSM and browser remote tests run (not sources of the target).
            exclude: ["Remote/nsm_test_server.py", "Remote/browser_remote.py"]
        ),
    ]
)

// libFuzzer targets (Fuzz/, run by tools/fuzz): only in a package built with JCAP_FUZZ set, since
// they link against the fuzzer runtime (`-sanitize=fuzzer`), which supplies their main; the
// normal build and tests never see them.
if ProcessInfo.processInfo.environment["JCAP_FUZZ"] != nil {
    package.targets.append(.target(name: "FuzzDriver", path: "Fuzz/FuzzDriver"))
    for name in ["session-file", "time", "take-log", "take-repair"] {
        package.targets.append(.executableTarget(name: "fuzz-" + name, dependencies: ["JackCapture", "FuzzDriver"],
                                                 path: "Fuzz/" + name))
    }
}
