// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import KernelState
import PathTestFixtures
import Testing
import ServiceSupport

/// The resolv.conf watcher against a real file in a temporary directory, replaced the
/// way resolvconf and systemd-resolved replace it.
@Suite("resolv.conf watcher")
struct ResolverWatcherTests {
    @Test("reports nameservers, an atomic replace without them, and an in-place edit")
    func watchesReplacements() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            let path = directory + "/resolv.conf"
            try "nameserver 192.0.2.53\n".write(toFile: path, atomically: false, encoding: .utf8)

            let queue = DispatchQueue(label: "pathd.test.resolver")
            let reports = Received<Bool>()
            let watcher = ResolverWatcher(path: path, upstreamPath: directory + "/upstream.conf", queue: queue,
                                          log: Logger(threshold: .error, journalPrefixes: false)) {
                reports.append($0)
            }
            queue.sync { watcher.start() }
            defer { queue.sync { watcher.cancel() } }
            #expect(try reports.next("the first read") == true)

            // Atomic replace: write a temporary file, rename it over the old one.
            let temporary = directory + "/.resolv.new"
            try "# no servers\nsearch example.org\n".write(toFile: temporary, atomically: false, encoding: .utf8)
            #expect(rename(temporary, path) == 0)
            #expect(try reports.next("the replacement without nameservers") == false)

            // In place, as an editor would.
            try "nameserver 2001:db8::53\n".write(toFile: path, atomically: false, encoding: .utf8)
            #expect(try reports.next("the edit adding one back") == true)
        }
    }

    @Test("only resolved's stub: its upstream file decides, watched the same way")
    func stubReadsUpstream() throws {
        try withTemporaryDirectory { temporary in
            let directory = temporary.url.path
            // resolved's directory beside the one holding resolv.conf, as /run/systemd/resolve beside /etc.
            let resolved = directory + "/resolve"
            try FileManager.default.createDirectory(atPath: resolved, withIntermediateDirectories: false)
            let path = directory + "/resolv.conf"
            let upstream = resolved + "/resolv.conf"
            func replace(_ file: String, with text: String) throws {
                let temporary = file + ".new"
                try text.write(toFile: temporary, atomically: false, encoding: .utf8)
                #expect(rename(temporary, file) == 0)
            }
            try "nameserver 127.0.0.53\noptions edns0 trust-ad\n".write(toFile: path, atomically: false,
                                                                        encoding: .utf8)
            try "# No DNS servers known.\n".write(toFile: upstream, atomically: false, encoding: .utf8)

            let queue = DispatchQueue(label: "pathd.test.resolver.stub")
            let reports = Received<Bool>()
            let watcher = ResolverWatcher(path: path, upstreamPath: upstream, queue: queue,
                                          log: Logger(threshold: .error, journalPrefixes: false)) { reports.append($0) }
            queue.sync { watcher.start() }
            defer { queue.sync { watcher.cancel() } }
            #expect(try reports.next("the stub without upstream servers") == false)

            try replace(upstream, with: "nameserver 192.0.2.53\nsearch example.org\n")
            #expect(try reports.next("an upstream server") == true)

            try FileManager.default.removeItem(atPath: upstream)
            #expect(try reports.next("resolved's file gone") == false)

            // A real nameserver in resolv.conf itself: the stub's upstreams no longer matter.
            try replace(path, with: "nameserver 192.0.2.54\n")
            #expect(try reports.next("a nameserver that is not the stub") == true)
        }
    }
}
