// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// The packaged binaries under the restrictions of pathd.service that apply without
    /// systemd as PID 1 (scripts/test/sandbox-exec.py says which and how): the unit's
    /// SystemCallFilter= set, RestrictAddressFamilies=, MemoryDenyWriteExecute= (PR_SET_MDWE),
    /// NoNewPrivileges=, LimitNOFILE= and an unprivileged uid without capabilities.
    @Suite("pathd under the unit's sandbox", .serialized)
    struct Sandbox {
        /// Kill on any call outside the unit's set; a call the unit answers with an errno
        /// (setpriority(2), with 0: libdispatch renices its threads) gets that answer.
        static let launcher = ["/usr/bin/python3", Repository.path("scripts/test/sandbox-exec.py"),
                               "--kill", "--user", "65534:65534", "--"]

        @Test("pathd and pathctl from the package serve, reload and stop under the unit's filter",
              .enabled(if: PackageUnderTest.probe.isAvailable, "\(PackageUnderTest.probe.reason)"),
              .enabled(if: Self.seccomp.isAvailable, "\(Self.seccomp.reason)"))
        func packagedBinariesUnderTheFilter() throws {
            try withVethTopology { topology in
                let (root, socket) = try Self.unpackPackage(in: topology)
                // Its two writable directories, as StateDirectory= and RuntimeDirectory= make them.
                let state = topology.directory.path("state")
                let metrics = topology.directory.path("metrics")
                for directory in [state, metrics] {
                    try makeDirectory(directory, owner: (65534, 65534))
                }
                let daemon = try topology.startDaemon(socketPath: socket,
                                                      arguments: ["--metrics-file", metrics + "/pathd.prom"],
                                                      launcher: Self.launcher,
                                                      pathd: URL(fileURLWithPath: "\(root)/usr/bin/pathd"),
                                                      environment: ["STATE_DIRECTORY": state])
                let subscriber = try topology.subscribe(socketPath: socket)
                try subscriber.waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))

                func sandboxedPathctl(_ arguments: String...) throws -> CommandResult {
                    try Command.run(URL(fileURLWithPath: Self.launcher[0]),
                                    Array(Self.launcher.dropFirst()) + ["\(root)/usr/bin/pathctl", "--socket", socket]
                                        + arguments)
                }
                let status = try sandboxedPathctl("status", "--json")
                #expect(status.termination == .exit(0), "stderr: \(status.stderr)")
                #expect(status.stdout.contains("\"status\":\"satisfied\""), "stdout: \(status.stdout)")
                // As ExecReload= runs it: the service's own uid may reload.
                let reload = try sandboxedPathctl("reload")
                #expect(reload.termination == .exit(0), "stderr: \(reload.stderr)")

                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied after the route went", PathLine.unsatisfied())
                // The metrics file (AtomicFile: open, write, fchmod, fsync, rename) under the filter.
                try waitUntil("the metrics file says unsatisfied") {
                    // Written at the first path already, and replaced atomically since: always readable.
                    try String(contentsOfFile: metrics + "/pathd.prom", encoding: .utf8)
                        .contains(#"pathd_path_status{pathd_path_status="unsatisfied"} 1"#)
                }
                let end = try daemon.terminate()
                let said = try daemon.stderr
                #expect(end == .exit(0), "a denied call kills with SIGSYS (31); stderr: \(said)")
                #expect(said.contains("configuration reloaded (requested by client"), "stderr: \(said)")
                // The history (appends, fdatasync) under the filter, closed with its stop mark.
                let history = try String(contentsOfFile: state + "/history.jsonl", encoding: .utf8)
                #expect(history.hasPrefix(#"{"event":"started""#) && history.hasSuffix("\n"), "\(history)")
                #expect(history.contains(#""status":"unsatisfied""#) && history.contains(#"{"event":"stopped""#),
                        "\(history)")
                #expect(try String(contentsOfFile: metrics + "/pathd.prom", encoding: .utf8).isEmpty)
            }
        }

        /// The package unpacked into the topology's directory, and a socket path in a
        /// directory the unprivileged uid owns; the directory made readable to it.
        static func unpackPackage(in topology: VethTopology) throws -> (root: String, socket: String) {
            try topology.openDirectoryToOthers()
            let root = topology.directory.path("root")
            try makeDirectory(root)
            try Command.check(Command.find("dpkg-deb"), ["--extract", PackageUnderTest.probe.path, root])
            let run = topology.directory.path("run")
            try makeDirectory(run, owner: (65534, 65534))
            return (root, "\(run)/pathd.sock")
        }

        /// Debian's python3 with python3-seccomp, which scripts/test/sandbox-exec.py loads.
        static let seccomp = PythonModule.probe("seccomp", package: "python3-seccomp")
    }
}
