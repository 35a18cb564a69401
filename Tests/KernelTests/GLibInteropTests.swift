import Foundation
import Testing

extension KernelTests {
    /// Programs that know nothing of pathd, through pathd's GIO module: the packaged module
    /// in gio-module's GLib test program, and a Qt 6 program through Qt's glib plug-in.
    @Suite("GLib and Qt programs through the GIO module")
    struct GLibInterop {
        /// The packaged module, not the one in gio-module/build, in a real GLib process.
        @Test("a GLib process loading the packaged module picks the pathd backend and follows pathd",
              .enabled(if: GIOModulePackage.probe.isAvailable, "\(GIOModulePackage.probe.reason)"),
              .enabled(if: GIOModulePackage.gioWatchIsBuilt, "gio-module/build/gio-watch not built: run `make build-gio-module`"))
        func packagedModuleLoads() throws {
            try GIOModulePackageTests.unpackModule(of: GIOModulePackage.probe.path) { module in
                try withVethTopology { topology in
                    try topology.startSatisfied()
                    let watch = try topology.runGLibProgram(
                        URL(fileURLWithPath: GIOModulePackage.gioWatch), [],
                        environment: ["GIO_EXTRA_MODULES": module.deletingLastPathComponent().path,
                                      "PATHD_SOCKET": topology.socketPath])
                    defer { teardown("kill gio-watch") { try watch.kill() } }
                    let initial = try watch.waitForObject("the first line") { $0["event"] as? String == "initial" }
                    #expect(initial["monitor"] as? String == "PathdNetworkMonitor", "\(initial)")
                    #expect(initial["available"] as? Bool == true, "\(initial)")
                    // Carrier loss keeps the default route (linkdown): only pathd's answer changes.
                    try topology.b.ip("link", "set", "vB", "down")
                    try watch.waitForObject("network-available false after carrier loss") {
                        $0["event"] as? String == "changed" && $0["available"] as? Bool == false
                    }
                }
            }
        }

        /// Qt asks NetworkManager first; without a system bus it loads its glib plug-in,
        /// whose g_network_monitor_get_default() is pathd's module here. Carrier loss keeps
        /// the default route, so GLib's own netlink backend would still say Online.
        @Test("a Qt 6 program gets the glib backend and its reachability follows pathd's path",
              .enabled(if: QtReachability.isBuilt, "\(QtReachability.path) not built: run `make interop`"),
              .enabled(if: FileManager.default.fileExists(atPath: Repository.path("gio-module/build/modules/libgiopathd.so")),
                       "gio-module/build/modules/libgiopathd.so not built: run `make build-gio-module`"))
        func qtFollowsPathd() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                let program = try topology.runGLibProgram(
                    URL(fileURLWithPath: QtReachability.path), [],
                    environment: ["GIO_EXTRA_MODULES": Repository.path("gio-module/build/modules"),
                                  "PATHD_SOCKET": topology.socketPath])
                defer { teardown("end qt-reachability") { try program.kill() } }
                let backend = try program.waitForObject("the backend line") { $0["event"] as? String == "backend" }
                #expect(backend["backend"] as? String == "glib", "\(backend)")
                try program.waitForObject("Online at start") { $0["reachability"] as? String == "Online" }

                try topology.b.ip("link", "set", "vB", "down")
                try subscriber.waitFor("unsatisfied after carrier loss", PathLine.unsatisfied())
                try program.waitForObject("Disconnected after carrier loss") {
                    $0["reachability"] as? String == "Disconnected"
                }
                try topology.b.ip("link", "set", "vB", "up")
                try subscriber.waitFor("satisfied again", PathLine.satisfied(through: "vA"))
                try program.waitForObject("Online again") { $0["reachability"] as? String == "Online" }

                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied without the default route", PathLine.unsatisfied())
                try program.waitForObject("Disconnected without the default route") {
                    $0["reachability"] as? String == "Disconnected"
                }
                program.closeInput()
                #expect(try program.waitForExit() == .exit(0), "stderr: \(program.stderr)")
            }
        }
    }
}

/// Tests/Interop/qt-reachability.cpp as `make interop` builds it.
enum QtReachability {
    static let path = Repository.path("build/interop/qt-reachability")
    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: path) }
}
