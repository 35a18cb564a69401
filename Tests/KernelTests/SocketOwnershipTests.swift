// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests {
    /// Who owns the socket path: a live daemon keeps it, a dead one's file is taken over, a clean exit removes it.
    @Suite("Socket ownership", .serialized)
    struct SocketOwnership {
        @Test("a second pathd on a live daemon's socket fails clearly and leaves the first serving")
        func secondDaemonRefused() throws {
            try withVethTopology { topology in
                let first = try topology.startDaemon()
                let second = try topology.launchDaemon()

                let end = try second.waitForExit()
                let message = try second.stderr
                #expect(end == .exit(1), "stderr: \(message)")
                #expect(message.contains(topology.socketPath), "the message should name the socket: \(message)")

                #expect(first.isRunning)
                try topology.subscribe().waitFor("a path line from the first daemon", PathLine.isPath)
            }
        }

        @Test("after SIGKILL the stale socket file does not stop a new pathd")
        func staleSocketReplaced() throws {
            try withVethTopology { topology in
                let first = try topology.startDaemon()
                try first.kill()
                #expect(FileManager.default.fileExists(atPath: topology.socketPath), "SIGKILL should leave the file")

                try topology.startDaemon()
                try topology.subscribe().waitFor("satisfied from the new daemon", PathLine.satisfied(through: "vA"))
            }
        }

        @Test("SIGTERM exits 0 and removes the socket file")
        func sigtermRemovesSocket() throws {
            try withVethTopology { topology in
                let daemon = try topology.startDaemon()
                let end = try daemon.terminate()
                let message = try daemon.stderr
                #expect(end == .exit(0), "stderr: \(message)")
                #expect(!FileManager.default.fileExists(atPath: topology.socketPath))
            }
        }

        // The socket accepts before the state queue runs; a SIGTERM in that window was once
        // discarded (an ignored signal with its dispatch source not yet registered), and
        // pathd served on. Repeated, because the window is narrow.
        @Test("SIGTERM the moment the socket accepts stops pathd cleanly, every time")
        func sigtermDuringStartup() throws {
            try withVethTopology { topology in
                for attempt in 0..<8 {
                    let daemon = try topology.startDaemon()
                    let end = try daemon.terminate()
                    let message = try daemon.stderr
                    #expect(end == .exit(0), "attempt \(attempt); stderr: \(message)")
                    #expect(!FileManager.default.fileExists(atPath: topology.socketPath), "attempt \(attempt)")
                }
            }
        }
    }
}
