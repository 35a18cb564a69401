// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// promtool on the shipped rules, with their unit tests: needs no namespace.
@Suite("example alert rules",
       .enabled(if: PrometheusTools.promtool != nil, "promtool is not installed (package prometheus)"), .blocking)
struct AlertRuleTests {
    @Test("promtool check rules accepts pathd.rules.yml, and promtool test rules passes its tests")
    func rules() throws {
        let promtool = try #require(PrometheusTools.promtool)
        let check = try Command.run(promtool,
                                    ["check", "rules", Repository.path("packaging/prometheus/pathd.rules.yml")])
        #expect(check.termination == .exit(0), "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("SUCCESS: 5 rules found"), "\(check.stdout)")
        let test = try Command.run(promtool,
                                   ["test", "rules", Repository.path("packaging/prometheus/pathd.rules.test.yml")])
        #expect(test.termination == .exit(0), "\(test.stdout)\(test.stderr)")
    }
}
