// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import PathProtocol
import PathSocketClient

/// The connectivity check's reports as pathd-probe sends them, and a configuration that
/// checks their URL: what the daemon and client tests of connectivity share.
public enum CheckReports {
    public static let url = "http://198.51.100.1:8080/check"

    public static func configuration(url: String? = Self.url) -> Configuration {
        var configuration = Configuration.builtIn
        configuration.connectivity.url = url
        configuration.connectivity.expected = url == nil ? nil : .bytes(Array("pathd-ok\n".utf8))
        return configuration
    }

    public static func report(_ state: ConnectivityState, interface: String = "eth0", url: String = Self.url,
                              redirect: String? = nil, elapsed: Int64 = 5,
                              checkedAt: Int64 = 1_796_113_800) -> Connectivity {
        Connectivity(state: state, evidence: ConnectivityEvidence(
            url: url, interface: interface, httpStatus: state == .none ? nil : (redirect == nil ? 200 : 302),
            redirectTarget: redirect, bytesReceived: 9,
            bodySHA256: state == .none ? nil : "5200f31394e983861b573ecf424853b57ad2abc2218a0d2cc390877a6bcc2197",
            elapsedMilliseconds: elapsed, checkedAt: UTCTime(secondsSinceEpoch: checkedAt)))
    }

    public static func send(_ report: Connectivity, from client: PathConnection,
                            id: Int64 = 1) throws -> ServerMessage {
        try client.send(Request(.reportConnectivity(report), id: .integer(id)))
        return try client.next()
    }
}
