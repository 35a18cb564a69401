// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// Programs that know nothing of pathd, through pathd's GIO module: the packaged module
    /// in gio-module's GLib test program, and a Qt 6 program through Qt's glib plug-in.
    @Suite("GLib and Qt programs through the GIO module", .serialized)
    struct GLibInterop {
        /// The packaged module, not the one in gio-module/build, in a real GLib process.
        @Test("a GLib process loading the packaged module picks the pathd backend and follows pathd",
              .enabled(if: GIOModulePackage.probe.isAvailable, "\(GIOModulePackage.probe.reason)"),
              .enabled(if: GIOModuleBuild.isBuilt, "\(GIOModuleBuild.notBuiltMessage)"))
        func packagedModuleLoads() throws {
            try GIOModulePackage.unpackModule(of: GIOModulePackage.probe.path) { module in
                try withVethTopology { topology in
                    try topology.startSatisfied()
                    let watch = try GIOWatch(in: topology.a, socketPath: topology.socketPath,
                                             stderrPath: topology.directory.path("gio-watch.stderr"),
                                             environment: [
                                                 "GIO_EXTRA_MODULES": module.deletingLastPathComponent().path,
                                             ])
                    defer { teardown("kill gio-watch") { try watch.kill() } }
                    let initial = try watch.next("initial", "the first line")
                    #expect(initial["monitor"] as? String == "PathdNetworkMonitor", "\(initial)")
                    #expect(initial["available"] as? Bool == true, "\(initial)")
                    // Carrier loss keeps the default route (linkdown): only pathd's answer changes.
                    try topology.b.ip("link", "set", "vB", "down")
                    let change = try watch.nextChange("the change after carrier loss")
                    #expect(change["available"] as? Bool == false, "\(change)")
                }
            }
        }

        /// Qt asks NetworkManager first; without a system bus it loads its glib plug-in,
        /// whose g_network_monitor_get_default() is pathd's module here. Carrier loss keeps
        /// the default route, so GLib's own netlink backend would still say Online.
        @Test("a Qt 6 program gets the glib backend and its reachability follows pathd's path",
              .enabled(if: QtReachability.isBuilt, "\(QtReachability.path) not built: run `make interop`"),
              .enabled(if: GIOModuleBuild.isBuilt, "\(GIOModuleBuild.notBuiltMessage)"))
        func qtFollowsPathd() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                let program = try topology.runQtReachability()
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

extension VethTopology {
    /// qt-reachability in namespace A with the built module, as `GIOWatch` runs gio-watch:
    /// pathd found through PATHD_SOCKET, and a system bus address that leads nowhere, so
    /// that Qt's networkmanager plug-in declines whatever the host runs.
    func runQtReachability() throws -> ProgramProcess {
        let stdbuf = try Command.find("stdbuf")
        let command = a.execArguments([stdbuf.path, "-oL", QtReachability.path])
        var environment = ProcessInfo.processInfo.environment
        environment["GIO_USE_NETWORK_MONITOR"] = nil
        environment["GIO_EXTRA_MODULES"] = GIOModuleBuild.moduleDirectory
        environment["PATHD_SOCKET"] = socketPath
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/system_bus_socket"
        return try ProgramProcess(command.executable, command.arguments, environment: environment,
                                  stderrPath: directory.path("qt-reachability.stderr"))
    }
}
