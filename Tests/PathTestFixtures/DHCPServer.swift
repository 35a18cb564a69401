// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Debian's dnsmasq as a router's DHCP server, in the router's network namespace, on
/// `interface`, leasing `range` with the options a phone's hotspot sends: `ANDROID_METERED`
/// in vendor option 43, a domain and search list, a captive portal (option 114). The
/// kernel tests serve vA from namespace B with it, the booted-systemd tests the
/// container's uplink from its peer namespace.
public final class DHCPServer {
    public static let domain = "hotel.example"
    public static let captivePortal = "https://portal.hotel.example/capport"

    private let child: ChildProcess
    private let stderrPath: String

    /// `range` as dnsmasq's `--dhcp-range` takes it: "FIRST,LAST".
    public init(namespace: String, interface: String, range: String, directory: TemporaryDirectory,
                metered: Bool = true) throws {
        stderrPath = directory.path("dnsmasq.stderr")
        var arguments = ["netns", "exec", namespace,
                         try Command.find("dnsmasq").path, "--no-daemon", "--conf-file=/dev/null", "--port=0",
                         "--user=root", "--interface=\(interface)", "--bind-interfaces",
                         "--dhcp-range=\(range),2m", "--dhcp-leasefile=" + directory.path("leases"),
                         "--pid-file=" + directory.path("dnsmasq.pid"), "--domain=" + Self.domain,
                         "--dhcp-option=option:domain-search," + Self.domain,
                         "--dhcp-option-force=114,\(Self.captivePortal)", "--log-dhcp"]
        if metered { arguments.append("--dhcp-option-force=43,ANDROID_METERED") }
        child = try ChildProcess(try Command.find("ip"), arguments, stderrPath: stderrPath)
        try waitUntil("dnsmasq serves DHCP on \(interface)", detail: { "; its log:\n\(try self.log)" }) {
            if let end = child.wait(until: Date()) { throw HarnessError("dnsmasq exited (\(end)):\n\(try log)") }
            return try log.contains("DHCP, IP range")
        }
    }

    public var log: String {
        get throws { try String(contentsOfFile: stderrPath, encoding: .utf8) }
    }

    public func stop() throws {
        try child.terminate("dnsmasq")
    }
}
