// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

let package = Package(
    name: "pathd",
    products: [
        .executable(name: "pathd", targets: ["pathd"]),
        .executable(name: "pathctl", targets: ["pathctl"]),
        // The connectivity check (issue 15): the only program of the package that opens IP
        // sockets, and the only one that links libcurl.
        .executable(name: "pathd-probe", targets: ["pathd-probe"]),
        // What Swift programs import: NWPathMonitor and PathMonitor, served by pathd or,
        // when no daemon answers, evaluated in-process (links libnl-3 and libnl-route-3).
        .library(name: "PathClient", targets: ["PathClient"]),
        // pathd's socket only: no in-process engine, links neither libnl nor libsystemd.
        .library(name: "PathSocketClient", targets: ["PathSocketClient"]),
        // For the fuzz package (Fuzz/Package.swift), which depends on this one by path.
        .library(name: "PathModel", targets: ["PathModel"]),
        .library(name: "PathProtocol", targets: ["PathProtocol"]),
    ],
    targets: [
        // libnl-3, libnl-route-3 and the kernel headers, for the Netlink module only.
        .systemLibrary(
            name: "CLinux",
            pkgConfig: "libnl-route-3.0",
            providers: [.apt(["libnl-3-dev", "libnl-route-3-dev"])]
        ),
        // sd-daemon(3), for the daemon only.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // libcurl (Debian's OpenSSL flavour), for pathd-probe only.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Header-only declarations of the GNU system calls Glibc does not import.
        .systemLibrary(name: "CSystemCalls"),
        .target(name: "SystemCalls", dependencies: ["CSystemCalls"]),
        .target(name: "PathModel"),
        .target(name: "PathProtocol", dependencies: ["PathModel"]),
        .target(name: "Netlink", dependencies: ["CLinux", "PathModel", "SystemCalls"]),
        .target(name: "PathEngine", dependencies: ["PathModel", "SystemCalls"]),
        .target(name: "PathDaemon", dependencies: ["CSystemd", "PathEngine", "PathModel", "PathProtocol", "SystemCalls"]),
        .target(name: "PathSocketClient", dependencies: ["PathModel", "PathProtocol", "SystemCalls"]),
        .target(name: "PathClient", dependencies: ["Netlink", "PathEngine", "PathModel", "PathProtocol", "PathSocketClient", "SystemCalls"]),
        // The connectivity check without its HTTP client: SHA-256, the verdict, when to check.
        .target(name: "ConnectivityCheck", dependencies: ["PathEngine", "PathModel", "PathProtocol", "PathSocketClient",
                                                          "SystemCalls"]),
        // The command-line grammar of the executables, and the command table that writes
        // pathctl's usage text and shell completions.
        .target(name: "CommandLineOptions", dependencies: ["PathModel"]),
        .executableTarget(name: "pathd", dependencies: ["CommandLineOptions", "CSystemd", "Netlink", "PathDaemon", "PathEngine",
                                                        "PathModel", "PathProtocol", "SystemCalls"]),
        .executableTarget(name: "pathctl", dependencies: ["CommandLineOptions", "PathSocketClient", "PathModel", "PathProtocol",
                                                          "SystemCalls"]),
        .executableTarget(name: "pathd-probe", dependencies: ["CCurl", "CommandLineOptions", "ConnectivityCheck", "PathEngine",
                                                              "PathModel", "PathProtocol", "PathSocketClient", "SystemCalls"]),
        // Examples/: built by `make test`, run by the kernel tests.
        .executableTarget(name: "OfflineBanner", dependencies: ["PathClient"], path: "Examples/OfflineBanner"),
        // The two programs of issue 9's "Done when", as written for Apple's Network.
        .executableTarget(name: "NWPathMonitorCallback", dependencies: ["PathClient"], path: "Examples/NWPathMonitorCallback"),
        .executableTarget(name: "NWPathMonitorAsync", dependencies: ["PathClient"], path: "Examples/NWPathMonitorAsync"),
        // Only pathd's socket: links neither libnl nor libsystemd (checked with ldd).
        .executableTarget(name: "SocketOnlyMonitor", dependencies: ["PathSocketClient"], path: "Examples/SocketOnlyMonitor"),
        // Code written for Apple's Network with only the import changed, compiled (never
        // run) in both language modes; Tests/AppleCompatibility/README.md explains.
        .target(name: "AppleCompatibilitySwift5", dependencies: ["PathClient"], path: "Tests/AppleCompatibility/Swift5",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "AppleCompatibilitySwift6", dependencies: ["PathClient"], path: "Tests/AppleCompatibility/Swift6"),
        // The in-process engine timed from inside a process, for `make bench` (Benchmarks/).
        .executableTarget(name: "pathd-engine-bench", dependencies: ["PathClient"], path: "Benchmarks/EngineBench"),
        // Prints each update of a PathMonitor as a JSON line, for the kernel tests that
        // run it inside a network namespace. Not a product.
        .executableTarget(name: "PathProbe", dependencies: ["PathClient", "PathModel"], path: "Tests/PathProbe"),
        // The one fixture library of the tests: the fixtures of the unit, protocol and daemon
        // tests, and the child processes of the kernel and netlink tests (ChildProcess, Command).
        .target(name: "PathTestFixtures", dependencies: ["PathModel", "SystemCalls"], path: "Tests/PathTestFixtures"),
        .testTarget(name: "PathModelTests", dependencies: ["PathModel", "PathTestFixtures"]),
        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions"]),
        // pathctl's command line, history report and colours, inside the executable (@testable).
        .testTarget(name: "PathctlTests", dependencies: ["pathctl", "CommandLineOptions", "PathModel", "PathProtocol"]),
        .testTarget(name: "PathProtocolTests", dependencies: ["PathProtocol", "PathModel", "PathTestFixtures"], exclude: ["Golden"]),
        .testTarget(name: "PathDaemonTests", dependencies: ["PathTestFixtures", "PathDaemon", "PathEngine", "PathClient", "PathSocketClient", "PathProtocol", "PathModel", "SystemCalls"]),
        .testTarget(name: "ConnectivityCheckTests", dependencies: ["ConnectivityCheck", "PathModel"]),
        .testTarget(name: "NetlinkTests", dependencies: ["Netlink", "PathModel", "PathTestFixtures"]),
        .testTarget(name: "KernelTests", dependencies: ["pathd", "pathctl", "pathd-probe", "PathProbe", "NWPathMonitorCallback",
                                                       "NWPathMonitorAsync", "SocketOnlyMonitor", "OfflineBanner", "PathClient",
                                                       "PathSocketClient", "PathProtocol", "PathModel", "SystemCalls",
                                                       "PathTestFixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
