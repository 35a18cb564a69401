// SPDX-License-Identifier: Apache-2.0
/// Who may make the requests that change what every client is told, and take the
/// connection budget's headroom: root and the daemon's own user. `reload` re-reads files
/// the requester may not control; `reportConnectivity` comes from pathd-probe, which runs
/// as pathd's user (pathd-probe.service's `User=pathd`). Not a separate probe uid:
/// pathd.service's `PrivateUsers=yes` maps every other user to nobody, so SO_PEERCRED
/// could not tell one apart. An unknown peer (`UInt32.max`, SO_PEERCRED failed) is never
/// trusted. The one owner of the rule: `ClientAdmission` marks each connection with it
/// (`ClientConnection.isTrusted`) and `ConnectionBudget` keeps its headroom by it.
struct PeerTrust: Sendable {
    /// The uid pathd runs as.
    let daemonUserID: UInt32

    /// Whether the peer `userID` is trusted.
    func trusts(_ userID: UInt32) -> Bool {
        userID != UInt32.max && (userID == 0 || userID == daemonUserID)
    }
}
