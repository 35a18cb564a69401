// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// Hostile local users, the files (docs/PROTOCOL.md, "Where the socket is"): what
    /// another user can put where pathd opens, binds or removes a file must neither hang it
    /// nor make it touch something it did not make.
    @Suite("Hostile files and sockets", .serialized)
    struct HostileFiles {
        // MARK: 8. FIFOs

        @Test("a configuration drop-in that is a FIFO: pathd exits at once, saying it is not a regular file")
        func fifoDropIn() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "[Daemon]\n".write(toFile: config, atomically: true, encoding: .utf8)
                try FileManager.default.createDirectory(atPath: config + ".d", withIntermediateDirectories: false)
                try Self.makeFIFO(config + ".d/50-fifo.conf")

                let daemon = try topology.launchDaemon(arguments: ["--config", config])
                let end = try daemon.waitForExit()
                let message = try daemon.stderr
                #expect(end == .exit(1), "stderr: \(message)")
                #expect(message.contains("\(config).d/50-fifo.conf"), "stderr: \(message)")
                #expect(message.contains("not a regular file"), "stderr: \(message)")
            }
        }

        @Test("--resolv-conf naming a FIFO: pathd serves with DNS unconfigured, and SIGTERM stops it")
        func fifoResolvConf() throws {
            try withVethTopology { topology in
                let fifo = topology.directory.path("resolv.conf")
                try Self.makeFIFO(fifo)
                let daemon = try topology.startDaemon(arguments: ["--resolv-conf", fifo])
                let line = try topology.subscribe().waitFor("satisfied through vA", PathLine.satisfied(through: "vA"))
                #expect(line["supportsDNS"] as? Bool == false, "line: \(line)")
                let message = try daemon.stderr
                #expect(message.contains("\(fifo): is not a regular file"), "stderr: \(message)")
                let end = try daemon.terminate()
                let finalMessage = try daemon.stderr
                #expect(end == .exit(0), "stderr: \(finalMessage)")
            }
        }

        // MARK: 9. removing only what pathd bound

        @Test("stopping a daemon whose socket file was replaced leaves the new daemon's socket in place")
        func stopLeavesAnotherDaemonsSocket() throws {
            try withVethTopology { topology in
                let first = try topology.startDaemon()
                #expect(unlink(topology.socketPath) == 0)
                let second = try topology.startDaemon()

                let end = try first.terminate()
                let message = try first.stderr
                #expect(end == .exit(0), "stderr: \(message)")
                #expect(try PathInfo.kind(of: topology.socketPath) == "socket", "the second daemon's socket is gone")
                let probe = try UnixConnection(connectingTo: topology.socketPath)
                defer { probe.close() }
                #expect(try peerProcessID(of: probe) == second.pid)
                try topology.subscribe().waitFor("a path from the second daemon", PathLine.satisfied(through: "vA"))
            }
        }

        // MARK: 10. the socket's mode

        /// In a directory another user may write (mode 0777, no sticky bit), the socket
        /// path could be replaced by a symbolic link between bind(2) and a chmod(2) of
        /// the path, and chmod would follow the link. That race lasts microseconds and a
        /// test cannot win it on demand; so this test shows that the window does not
        /// exist: pathd runs under strace, which records no chmod, fchmodat or
        /// fchmodat2 of the path at all, and under umask 077 the socket is still 0666,
        /// which only the umask pathd sets around bind(2) can have done. What can be
        /// shown directly is shown too: a symbolic link already at the path is refused,
        /// and the root-only file it points to keeps its mode.
        @Test("""
            under umask 077 in a directory anyone may write: a 0666 socket made without chmod of its path; a symbolic \
            link at the path is refused
            """)
        func socketModeWithoutPath() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                let shared = topology.directory.path("shared")
                try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
                #expect(chmod(shared, 0o777) == 0)
                let socketPath = shared + "/pathd.sock"
                let trace = topology.directory.path("strace.log")
                let strace = try Command.find("strace").path
                let daemon = try topology.startDaemon(
                    socketPath: socketPath,
                    launcher: Self.umask077 + [strace, "-f", "-qq", "--seccomp-bpf", "-e", "trace=%file", "-o", trace])

                #expect(try PathInfo.kind(of: socketPath) == "socket")
                #expect(try PathInfo.permissions(of: socketPath) == 0o666)
                let nobody = try HostileClient(topology, socketPath: socketPath, mode: "connections", ["--count", "1"])
                #expect(try nobody.finish()["firstLines"] as? [String: Int] == ["hello": 1])

                // strace runs pathd as its child: stop pathd itself, then strace ends with its status.
                let probe = try UnixConnection(connectingTo: socketPath)
                let pid = try peerProcessID(of: probe)
                probe.close()
                #expect(kill(pid, SIGTERM) == 0)
                let end = try daemon.waitForExit()
                let daemonMessage = try daemon.stderr
                #expect(end == .exit(0), "stderr: \(daemonMessage)")
                let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
                let quoted = "\"\(socketPath)\""
                #expect(calls.contains { $0.contains("unlink(\(quoted))") },
                        "the trace should show pathd removing its socket (else it traced nothing): \(calls.suffix(20))")
                let modeChanges = calls.filter { $0.contains("chmod") && $0.contains(quoted) }
                #expect(modeChanges.isEmpty, "pathd changed the mode through the path: \(modeChanges)")

                // A symbolic link at the path, to a file only root may read: refused, untouched.
                let secret = topology.directory.path("root-only")
                try "secret\n".write(toFile: secret, atomically: false, encoding: .utf8)
                #expect(chmod(secret, 0o600) == 0)
                #expect(symlink(secret, socketPath) == 0)
                let refused = try topology.launchDaemon(socketPath: socketPath, launcher: Self.umask077)
                let refusedEnd = try refused.waitForExit()
                let message = try refused.stderr
                #expect(refusedEnd == .exit(1), "stderr: \(message)")
                #expect(message.contains("\(socketPath) exists and is not a socket"), "stderr: \(message)")
                #expect(try PathInfo.kind(of: socketPath) == "symbolic link")
                #expect(try PathInfo.permissions(of: secret) == 0o600)
            }
        }

        @Test("under umask 077, the socket's directory pathd creates is 0755: other users reach the socket")
        func createdDirectoryReachable() throws {
            try withVethTopology { topology in
                try topology.openDirectoryToOthers()
                let directory = topology.directory.path("run")
                let socketPath = directory + "/pathd.sock"
                try topology.startDaemon(socketPath: socketPath, launcher: Self.umask077)
                #expect(try PathInfo.permissions(of: directory) == 0o755)
                #expect(try PathInfo.permissions(of: socketPath) == 0o666)
                let nobody = try HostileClient(topology, socketPath: socketPath, mode: "connections", ["--count", "1"])
                #expect(try nobody.finish()["firstLines"] as? [String: Int] == ["hello": 1])
            }
        }

        /// Runs what follows under umask 077: `sh -c 'umask 077 && exec "$0" "$@"' COMMAND...`.
        static let umask077 = ["/bin/sh", "-c", "umask 077 && exec \"$0\" \"$@\""]

        static func makeFIFO(_ path: String) throws {
            guard mkfifo(path, 0o644) == 0 else { throw HarnessError.posix("mkfifo \(path)", errno: errno) }
        }
    }
}

/// lstat(2) for tests: a file's type and permission bits, without following a link.
enum PathInfo {
    static func kind(of path: String) throws -> String {
        switch try info(path).st_mode & S_IFMT {
        case S_IFSOCK: "socket"
        case S_IFLNK: "symbolic link"
        case S_IFREG: "regular file"
        case S_IFDIR: "directory"
        case S_IFIFO: "fifo"
        default: "other"
        }
    }

    static func permissions(of path: String) throws -> mode_t {
        try info(path).st_mode & 0o7777
    }

    private static func info(_ path: String) throws -> stat {
        var result = stat()
        guard lstat(path, &result) == 0 else { throw HarnessError.posix("lstat \(path)", errno: errno) }
        return result
    }
}
