// SPDX-License-Identifier: Apache-2.0
/// How many connections the daemon serves, per user and in all, with headroom kept for
/// root and the daemon's own user: one local user opening connections until the limit
/// must never lock out the administrator (as dbus-daemon's `max_connections_per_user`).
struct ConnectionBudget {
    /// `MaxClients=`: connections in all. A reload changes it for new connections.
    var maximumClients: Int
    /// `MaxClientsPerUser=`: connections of one unprivileged uid.
    var maximumPerUser: Int
    /// Who is privileged: root and the daemon's own user.
    let trust: PeerTrust

    private(set) var total = 0
    private var perUser: [UInt32: Int] = [:]

    init(maximumClients: Int, maximumPerUser: Int, trust: PeerTrust) {
        self.maximumClients = maximumClients
        self.maximumPerUser = maximumPerUser
        self.trust = trust
    }

    /// Connections only root and the daemon's user may take: 1 in 32 of `MaxClients=`
    /// (32 of the default 1024; none below 32).
    var reservedForPrivileged: Int { maximumClients / 32 }

    /// The connections `userID` holds now.
    func connections(of userID: UInt32) -> Int { perUser[userID] ?? 0 }

    /// nil when `userID` may connect now; else why not, for the `tooManyClients` error.
    func refusal(for userID: UInt32) -> String? {
        if total >= maximumClients {
            return "pathd serves at most \(maximumClients) \(maximumClients == 1 ? "client" : "clients") at once"
        }
        guard !trust.trusts(userID) else { return nil }
        if total >= maximumClients - reservedForPrivileged {
            return "pathd keeps its last \(reservedForPrivileged) connections for root"
        }
        if connections(of: userID) >= maximumPerUser {
            return "uid \(userID) already has \(maximumPerUser) connections to pathd (MaxClientsPerUser=)"
        }
        return nil
    }

    mutating func admit(_ userID: UInt32) {
        total += 1
        perUser[userID, default: 0] += 1
    }

    mutating func release(_ userID: UInt32) {
        total -= 1
        let left = (perUser[userID] ?? 1) - 1
        perUser[userID] = left > 0 ? left : nil
    }
}
