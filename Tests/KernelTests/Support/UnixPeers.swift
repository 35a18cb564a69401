// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// Whether the daemon `server` has accepted a connection from the process `client`: one
/// of the client's sockets has a peer (as ss(8) reports it from the kernel's sock_diag)
/// that is an open descriptor of the server. Connected is not enough: the kernel makes
/// the server's end at connect(2), before accept(2) hands it to the daemon.
func hasAccepted(server: pid_t, client: pid_t) throws -> Bool {
    let clientSockets = try socketInodes(of: client)
    guard !clientSockets.isEmpty else { return false }
    // "u_str ESTAB 0 0 * 118070 * 118071": local inode, then the peer's.
    let table = try Command.check(Command.find("ss"), ["--unix", "--numeric", "--no-header"])
    let peers = table.split(separator: "\n").compactMap { row -> String? in
        let fields = row.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8, clientSockets.contains(String(fields[5])) else { return nil }
        return String(fields[7])
    }
    let serverSockets = try socketInodes(of: server)
    return peers.contains { serverSockets.contains($0) }
}

/// The inode numbers of the sockets `pid` holds open, from /proc/PID/fd.
private func socketInodes(of pid: pid_t) throws -> Set<String> {
    let directory = "/proc/\(pid)/fd"
    var inodes: Set<String> = []
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
        let target: String
        do {
            target = try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)")
        } catch {
            // Closed since the listing: not one of its sockets any more.
            continue
        }
        if target.hasPrefix("socket:["), target.hasSuffix("]") {
            inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
        }
    }
    return inodes
}
