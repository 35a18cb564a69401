// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// `pathd --check-config`: needs no namespace and no socket, so it runs everywhere.
@Suite("pathd --check-config", .blocking)
struct CheckConfigCommand {
    @Test("a valid file prints the effective configuration; an invalid one exits 1 with file:line")
    func checkConfig() throws {
        try withTemporaryDirectory { directory in
            let config = directory.path("pathd.conf")
            try "[Daemon]\nMaxClients=5\nColour=blue\n[Interface]\nName=wwan* !wwan9\nExpensive=yes\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            let pathd = try BuiltProduct.url("pathd")
            let valid = try Command.run(pathd, ["--check-config", "--config", config, "--socket", "/run/x.sock"])
            #expect(valid.termination == .exit(0), "stderr: \(valid.stderr)")
            #expect(valid.stdout.contains("[Daemon]\nSocket=/run/x.sock\n"), "stdout: \(valid.stdout)")
            #expect(valid.stdout.contains("MaxClients=5\n"))
            #expect(valid.stdout.contains("[Interface]\n# \(config):4\nName=wwan* !wwan9\nExpensive=yes\n"))
            #expect(valid.stderr == "warning: \(config):3: unknown key Colour= in [Daemon]; ignored\n")

            try FileManager.default.createDirectory(atPath: config + ".d", withIntermediateDirectories: true)
            try "[Interface]\nOnDemand=perhaps\n".write(toFile: config + ".d/10-bad.conf", atomically: true,
                                                        encoding: .utf8)
            let invalid = try Command.run(pathd, ["--check-config", "--config", config])
            #expect(invalid.termination == .exit(1))
            #expect(invalid.stdout.isEmpty)
            #expect(invalid.stderr.contains("error: \(config).d/10-bad.conf:2: OnDemand= expects a boolean"),
                    "stderr: \(invalid.stderr)")

            let missing = try Command.run(pathd, ["--check-config", "--config", directory.path("absent.conf")])
            #expect(missing.termination == .exit(1))
            #expect(missing.stderr.contains("absent.conf: cannot open: No such file or directory"))
        }
    }

    @Test("a lookup address that cannot stand for the Internet: the flag is a usage error (2), the file invalid (1)")
    func lookupAddressesThatAreNoInternetHost() throws {
        try withTemporaryDirectory { directory in
            let empty = directory.path("empty.conf")
            try "".write(toFile: empty, atomically: true, encoding: .utf8)
            let config = directory.path("pathd.conf")
            try "[Daemon]\nLookupIPv6=ff02::1\n".write(toFile: config, atomically: true, encoding: .utf8)
            let pathd = try BuiltProduct.url("pathd")
            let flag = try Command.run(pathd, ["--check-config", "--config", empty, "--lookup-ipv4", "127.0.0.1"])
            #expect(flag.termination == .exit(2))
            #expect(flag.stderr.contains("--lookup-ipv4 expects a unicast IPv4 address that stands for the Internet, "
                + "not a loopback address (127.0.0.0/8), got \"127.0.0.1\""), "stderr: \(flag.stderr)")
            let file = try Command.run(pathd, ["--check-config", "--config", config])
            #expect(file.termination == .exit(1))
            #expect(file.stdout.isEmpty)
            #expect(file.stderr.contains("error: \(config):2: LookupIPv6= expects a unicast IPv6 address that stands "
                + "for the Internet, not a multicast address (ff00::/8), got \"ff02::1\""), "stderr: \(file.stderr)")
            // A start refuses the same file, before it touches the socket or the kernel.
            let start = try Command.run(pathd, ["--config", config, "--socket", directory.path("never.sock")],
                                        timeout: .seconds(60))
            #expect(start.termination == .exit(1), "stderr: \(start.stderr)")
            #expect(start.stderr.contains("LookupIPv6= expects a unicast IPv6 address"), "stderr: \(start.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.path("never.sock")))
        }
    }

    /// pathd as nobody (uid 65534) with an environment of only PATH and, when given,
    /// XDG_RUNTIME_DIR: the default socket of a user other than root comes from it.
    private static func asNobody(_ runtimeDirectory: String?, _ arguments: [String]) throws -> CommandResult {
        let environment = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"]
            + (runtimeDirectory.map { ["XDG_RUNTIME_DIR=\($0)"] } ?? [])
        return try Command.run(URL(fileURLWithPath: "/usr/bin/env"),
                               ["-i"] + environment
                                   + Command.asUser([try BuiltProduct.url("pathd").path] + arguments),
                               timeout: .seconds(60))
    }

    @Test("""
        as a user other than root, XDG_RUNTIME_DIR unset, empty or relative is named as such: a start exits 1, \
        --check-config too
        """,
          .enabled(if: getuid() == 0, "needs root to run pathd as nobody"))
    func runtimeDirectoryOfAnotherUser() throws {
        try withTemporaryDirectory { directory in
            // mkdtemp made it 0700: nobody must read the configuration in it.
            guard chmod(directory.url.path, 0o755) == 0 else { throw HarnessError.posix("chmod", errno: errno) }
            let config = directory.path("pathd.conf")
            try "".write(toFile: config, atomically: true, encoding: .utf8)
            let hint = "; give the socket path with --socket PATH or Socket="
            for (runtime, why) in [("rel", #"XDG_RUNTIME_DIR is not an absolute path ("rel")"#),
                                   ("run/user/65534", #"XDG_RUNTIME_DIR is not an absolute path ("run/user/65534")"#),
                                   (nil, "XDG_RUNTIME_DIR is not set"), ("", "XDG_RUNTIME_DIR is not set")] {
                let start = try Self.asNobody(runtime, ["--config", config])
                #expect(start.termination == .exit(1), "\(runtime ?? "unset"): stderr: \(start.stderr)")
                #expect(start.stderr.contains("pathd: " + why + hint), "\(runtime ?? "unset"): stderr: \(start.stderr)")
                let check = try Self.asNobody(runtime, ["--check-config", "--config", config])
                #expect(check.termination == .exit(1), "\(runtime ?? "unset"): stderr: \(check.stderr)")
                #expect(check.stdout.isEmpty, "\(runtime ?? "unset"): stdout: \(check.stdout)")
                #expect(check.stderr.contains("error: " + why + hint), "\(runtime ?? "unset"): stderr: \(check.stderr)")
            }
            // With a socket named, or an absolute runtime directory, the same user's configuration is complete.
            let named = try Self.asNobody("rel", ["--check-config", "--config", config, "--socket", "/run/x.sock"])
            #expect(named.termination == .exit(0), "stderr: \(named.stderr)")
            #expect(named.stdout.contains("\nSocket=/run/x.sock\n"), "stdout: \(named.stdout)")
            let absolute = try Self.asNobody("/run/user/65534", ["--check-config", "--config", config])
            #expect(absolute.termination == .exit(0), "stderr: \(absolute.stderr)")
            #expect(absolute.stdout.contains("\nSocket=/run/user/65534/pathd/pathd.sock\n"),
                    "stdout: \(absolute.stdout)")
        }
    }

    @Test("""
        a flag takes what its key takes: a relative --socket is a usage error, --log-level any case, sizes with \
        suffixes
        """)
    func flagsAgreeWithKeys() throws {
        try withTemporaryDirectory { directory in
            let config = directory.path("pathd.conf")
            try "".write(toFile: config, atomically: true, encoding: .utf8)
            let pathd = try BuiltProduct.url("pathd")
            let relative = try Command.run(pathd, ["--check-config", "--config", config, "--socket", "x.sock"])
            #expect(relative.termination == .exit(2))
            #expect(relative.stderr.contains("--socket expects an absolute path of at most 107 bytes, got \"x.sock\""),
                    "stderr: \(relative.stderr)")
            let valid = try Command.run(pathd, ["--check-config", "--config", config, "--log-level", "DEBUG",
                                                "--receive-buffer", "4M", "--resolv-conf", "/run/resolv.conf",
                                                "--upstream-resolv-conf=/run/upstream.conf"])
            #expect(valid.termination == .exit(0), "stderr: \(valid.stderr)")
            #expect(valid.stdout.contains("LogLevel=debug\n"), "stdout: \(valid.stdout)")
            #expect(valid.stdout.contains("ReceiveBuffer=4194304\n"), "stdout: \(valid.stdout)")
            #expect(valid.stdout.contains("ResolvConf=/run/resolv.conf\n"))
            #expect(valid.stdout.contains("UpstreamResolvConf=/run/upstream.conf\n"))
            let relativeUpstream = try Command.run(pathd, ["--check-config", "--config", config,
                                                           "--upstream-resolv-conf", "upstream.conf"])
            #expect(relativeUpstream.termination == .exit(2))
            #expect(relativeUpstream.stderr.contains("--upstream-resolv-conf expects an absolute path"),
                    "stderr: \(relativeUpstream.stderr)")
        }
    }
}
