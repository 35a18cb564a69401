// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

extension KernelTests.Hints {
    @Test("""
        dhcpcd with the shipped hook: expensive by the hint (isExpensiveSetBy), not when [Network] says \
        Expensive=no for the network it names
        """)
    func dhcpcdHookOverriddenByNetwork() throws {
        try withVethTopology { topology in try Self.withDHCP(topology) { host in
            let config = try Self.writeConfig(topology, "")
            try topology.startDaemon(arguments: ["--config", config])
            let subscriber = try topology.subscribe()
            let client = try host.start(["dhcpcd", "-4", "-B", "--noarp", "-d", "vA"], name: "dhcpcd")
            defer { teardown("stop dhcpcd") { try client.terminate("dhcpcd") } }
            let metered = try subscriber.waitFor("expensive through vA", timeout: .seconds(30),
                                                 Self.satisfied(expensive: true))
            #expect(metered["isExpensiveSetBy"] as? String == "hint", "\(metered)")

            // Configuration overrides the hint: the network, once identified, is named and free.
            try "[Network]\nHint=androidMetered\nName=phone\nExpensive=no\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            let reloaded = try KernelTests.ConfigAgainstDaemon.reload(topology)
            try #require(reloaded.termination == .exit(0), "\(reloaded.stderr)")
            let free = try subscriber.waitFor("free through vA, by [Network]", timeout: .seconds(20)) { line in
                Self.satisfied(expensive: false)(line)
                    && (Self.firstInterface(line)["network"] as? [String: Any])?["name"] as? String == "phone"
            }
            #expect(free["isExpensiveSetBy"] as? String == "network", "\(free)")
        } }
    }
}
