// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

let package = Package(
    name: "pathd",
    products: [
        .executable(name: "pathd", targets: ["pathd"]),
        .executable(name: "pathctl", targets: ["pathctl"]),
        // The connectivity check (docs/ARCHITECTURE.md): the only program of the package that
        // opens IP sockets, and the only one that links libcurl.
        .executable(name: "pathd-probe", targets: ["pathd-probe"]),
        // What Swift programs import: NWPathMonitor and PathMonitor, served by pathd or,
        // when no daemon answers, evaluated in-process (links libnl-3).
        .library(name: "PathClient", targets: ["PathClient"]),
        // Apple's module name for the same compatibility types: code written for Apple's
        // Network framework compiles with nothing changed, its `import Network` and
        // `Network.NWPath` included (README.md, "Swift").
        .library(name: "Network", targets: ["Network"]),
        // pathd's socket only: no in-process engine, links neither libnl nor libsystemd.
        .library(name: "PathSocketClient", targets: ["PathSocketClient"]),
        // For the fuzz package (Fuzz/Package.swift), which depends on this one by path.
        .library(name: "PathConfiguration", targets: ["PathConfiguration"]),
        .library(name: "PathProtocol", targets: ["PathProtocol"]),
    ],
    targets: [
        // libnl-3 and the kernel headers, for the Netlink module only.
        .systemLibrary(
            name: "CLinux",
            pkgConfig: "libnl-3.0",
            providers: [.apt(["libnl-3-dev"])]
        ),
        // libnl-route-3's objects, for pathd-decode-bench only: no program of the package links
        // it (docs/ARCHITECTURE.md, "Why not libnl-route's objects").
        .systemLibrary(
            name: "CNetlinkRoute",
            path: "Benchmarks/CNetlinkRoute",
            pkgConfig: "libnl-route-3.0",
            providers: [.apt(["libnl-route-3-dev"])]
        ),
        // sd-daemon(3), for the daemon only.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        // libcurl (Debian's OpenSSL flavour), for pathd-probe only.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        // Header-only declarations of the GNU system calls Glibc does not import.
        .systemLibrary(name: "CSystemCalls"),
        .target(name: "SystemCalls", dependencies: ["CSystemCalls"]),
        // The values every module speaks in: links, addresses, snapshots, paths, reports.
        .target(name: "PathModel"),
        // pathd.conf's sections as values: each section's settings and its table of keys (how
        // they parse and print), the [Interface] rules and the policy they make; no text format.
        .target(name: "PathSettings", dependencies: ["PathModel"]),
        // pathd.conf's language: the INI parser, diagnostics, and the files it is read from
        // (pathd.conf and its drop-ins), into one Configuration of the sections.
        .target(name: "PathConfiguration", dependencies: ["PathModel", "PathSettings", "SystemCalls"]),
        // Where the path is computed: a snapshot and a policy in, a path or a route's verdict out.
        .target(name: "PathEvaluation", dependencies: ["PathSettings", "PathModel"]),
        .target(name: "PathProtocol", dependencies: ["PathModel"]),
        .target(name: "Netlink", dependencies: ["CLinux", "PathModel", "SystemCalls"]),
        // What every program of the package shares that is neither the model nor a system
        // call: the logger, the handled signals, the system clocks.
        .target(name: "ServiceSupport", dependencies: ["PathModel", "SystemCalls"]),
        .target(name: "KernelState", dependencies: ["PathModel", "ServiceSupport", "SystemCalls"]),
        .target(name: "PathDaemon", dependencies: ["CSystemd", "KernelState", "PathModel", "PathEvaluation",
                                                   "PathConfiguration", "PathProtocol", "ServiceSupport",
                                                   "SystemCalls"]),
        .target(name: "PathSocketClient", dependencies: ["PathModel", "PathProtocol", "SystemCalls"]),
        .target(name: "PathClient", dependencies: ["Netlink", "KernelState", "PathModel", "PathEvaluation",
                                                   "PathConfiguration", "PathSocketClient", "ServiceSupport",
                                                   "SystemCalls"]),
        // Apple's names only (NWPathMonitor, NWPath, NWInterface, NWEndpoint, the addresses),
        // re-exported from PathClient under the module name Apple's code imports.
        .target(name: "Network", dependencies: ["PathClient"]),
        // The connectivity check without its HTTP client: SHA-256, the verdict, when to check.
        .target(name: "ConnectivityCheck", dependencies: ["PathModel", "PathConfiguration", "PathProtocol",
                                                          "PathSocketClient", "ServiceSupport", "SystemCalls"]),
        // The command-line grammar of the executables, and the command table that writes
        // pathctl's usage text and shell completions.
        .target(name: "CommandLineOptions"),
        .executableTarget(name: "pathd", dependencies: ["CommandLineOptions", "CSystemd", "Netlink", "PathDaemon",
                                                        "KernelState", "PathModel", "PathConfiguration",
                                                        "PathProtocol", "ServiceSupport", "SystemCalls"]),
        .executableTarget(name: "pathctl", dependencies: ["CommandLineOptions", "PathSocketClient", "PathModel",
                                                          "PathProtocol", "ServiceSupport", "SystemCalls"]),
        .executableTarget(name: "pathd-probe", dependencies: ["CCurl", "CommandLineOptions", "ConnectivityCheck",
                                                              "PathModel", "PathConfiguration", "PathProtocol",
                                                              "ServiceSupport"]),
        // Examples/: built by `make test`, run by the kernel tests.
        .executableTarget(name: "OfflineBanner", dependencies: ["PathClient"], path: "Examples/OfflineBanner"),
        // Two programs as written for Apple's Network, unchanged, built against the
        // Network product.
        .executableTarget(name: "NWPathMonitorCallback", dependencies: ["Network"],
                          path: "Examples/NWPathMonitorCallback"),
        .executableTarget(name: "NWPathMonitorAsync", dependencies: ["Network"],
                          path: "Examples/NWPathMonitorAsync"),
        // The route to one address as an AsyncSequence (PathMonitor.routeUpdates).
        .executableTarget(name: "RouteWatch", dependencies: ["PathClient"], path: "Examples/RouteWatch"),
        // Only pathd's socket: links neither libnl nor libsystemd (checked with ldd).
        .executableTarget(name: "SocketOnlyMonitor", dependencies: ["PathSocketClient"],
                          path: "Examples/SocketOnlyMonitor"),
        // Code written for Apple's Network with only the import changed, compiled (never
        // run) in both language modes; Tests/AppleCompatibility/README.md explains.
        .target(name: "AppleCompatibilitySwift5", dependencies: ["Network"],
                path: "Tests/AppleCompatibility/Swift5", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "AppleCompatibilitySwift6", dependencies: ["Network"],
                path: "Tests/AppleCompatibility/Swift6",
                swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        // The in-process engine timed from inside a process, for `make bench` (Benchmarks/).
        .executableTarget(name: "pathd-engine-bench", dependencies: ["PathClient"],
                          path: "Benchmarks/EngineBench"),
        // pathd's decoders against libnl-route-3's objects on the same captured messages
        // (Benchmarks/decodebench.py).
        .executableTarget(name: "pathd-decode-bench", dependencies: ["CLinux", "CNetlinkRoute", "Netlink", "PathModel"],
                          path: "Benchmarks/DecodeBench"),
        // Stamps lines as a blocking read returns them, for `make bench`'s latency figures.
        .executableTarget(name: "pathd-linestamp", path: "Benchmarks/LineStamp"),
        // The least a reader of the path does after the kernel's message (the lookups a
        // verdict needs, one line), for `make bench`'s floor part.
        .executableTarget(name: "pathd-floor", dependencies: ["CLinux", "PathModel", "SystemCalls"],
                          path: "Benchmarks/Floor"),
        // Prints each update of a PathMonitor as a JSON line, for the kernel tests that
        // run it inside a network namespace. Not a product.
        .executableTarget(name: "PathMonitorPrinter", dependencies: ["PathClient", "PathModel"],
                          path: "Tests/PathMonitorPrinter"),
        // The one fixture library of the tests: the fixtures of the unit, protocol and daemon
        // tests; the child processes, network namespaces and temporary directories of the
        // kernel and netlink tests (ChildProcess, Command, NetworkNamespace, TemporaryDirectory);
        // the built programs, packages and packaging files of the kernel, packaging and
        // program tests (BuiltProduct, PackageUnderTest, UnitFile).
        .target(name: "PathTestFixtures",
                dependencies: ["PathModel", "PathProtocol", "PathSocketClient", "SystemCalls"],
                path: "Tests/PathTestFixtures"),
        // An in-process pathd (PathService on a real socket, fed by a fake kernel) for the
        // daemon and client-library tests.
        .target(name: "DaemonTestSupport", dependencies: ["PathDaemon", "PathClient", "PathSocketClient",
                                                          "PathProtocol", "PathModel", "PathConfiguration",
                                                          "ServiceSupport", "SystemCalls", "PathTestFixtures"],
                path: "Tests/DaemonTestSupport"),
        .testTarget(name: "PathModelTests", dependencies: ["PathModel", "PathTestFixtures"]),
        .testTarget(name: "PathConfigurationTests", dependencies: ["PathConfiguration", "PathModel",
                                                                   "PathTestFixtures"]),
        .testTarget(name: "PathEvaluationTests", dependencies: ["PathEvaluation", "PathConfiguration", "PathModel",
                                                                "PathTestFixtures"]),
        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions"]),
        // pathctl's command line, history report and colours, inside the executable (@testable).
        .testTarget(name: "PathctlTests", dependencies: ["pathctl", "CommandLineOptions", "PathModel", "PathProtocol"]),
        .testTarget(name: "PathProtocolTests", dependencies: ["PathProtocol", "PathModel", "PathEvaluation",
                                                              "PathConfiguration", "PathTestFixtures"],
                    exclude: ["Golden"]),
        // The daemon's side of the socket, on DaemonTestSupport's in-process pathd.
        .testTarget(name: "PathDaemonTests", dependencies: ["PathTestFixtures", "DaemonTestSupport", "PathDaemon",
                                                            "KernelState", "PathSocketClient", "PathProtocol",
                                                            "PathModel", "PathConfiguration", "ServiceSupport",
                                                            "SystemCalls"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls", "PathModel", "PathTestFixtures"]),
        .testTarget(name: "KernelStateTests", dependencies: ["KernelState", "ServiceSupport", "PathTestFixtures"]),
        // PathMonitor, NWPathMonitor and PathSocketClient against a fake or in-process daemon.
        .testTarget(name: "ClientLibraryTests", dependencies: ["PathClient", "PathSocketClient", "PathProtocol",
                                                              "PathModel", "SystemCalls", "PathTestFixtures",
                                                              "DaemonTestSupport"]),
        .testTarget(name: "ConnectivityCheckTests", dependencies: ["ConnectivityCheck", "PathModel",
                                                                   "PathConfiguration", "ServiceSupport",
                                                                   "PathTestFixtures"]),
        .testTarget(name: "NetlinkTests", dependencies: ["CLinux", "Netlink", "PathModel", "PathConfiguration",
                                                          "KernelState", "ServiceSupport", "PathTestFixtures"]),
        // The packages under a real systemd booted in a container (scripts/test/booted_systemd.py).
        .testTarget(name: "SystemdTests", dependencies: ["PathTestFixtures"]),
        // What ships beside the binaries, read or unpacked without a network namespace: the
        // packages `make deb` built (PATHD_TEST_DEB, PATHD_TEST_GIO_DEB) and their maintainer
        // scripts, the units, man pages, completions, example configuration and alert rules,
        // `make install`.
        .testTarget(name: "PackagingTests", dependencies: ["pathd", "pathctl", "pathd-probe", "PathModel",
                                                          "PathConfiguration", "PathProtocol", "PathTestFixtures"]),
        // The built programs without a kernel: pathd --check-config; pathctl against no daemon,
        // a newer or misbehaving one, a silent one; what each program links.
        .testTarget(name: "ProgramTests", dependencies: ["pathd", "pathctl", "PathMonitorPrinter",
                                                        "NWPathMonitorCallback", "NWPathMonitorAsync",
                                                        "SocketOnlyMonitor", "OfflineBanner", "PathProtocol",
                                                        "PathTestFixtures"]),
        // The real pathd, and the programs of the package, in network namespaces (root).
        .testTarget(name: "KernelTests", dependencies: ["pathd", "pathctl", "pathd-probe", "PathMonitorPrinter",
                                                        "NWPathMonitorCallback", "NWPathMonitorAsync",
                                                        "SocketOnlyMonitor", "OfflineBanner", "RouteWatch",
                                                        "PathClient", "PathProtocol", "PathModel",
                                                        "SystemCalls", "PathTestFixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
