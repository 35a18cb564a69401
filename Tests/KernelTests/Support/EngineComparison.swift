// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import Testing

/// pathd and PathClient's in-process engine in the same network namespace, compared
/// field by field (docs/ARCHITECTURE.md, "Client library").
///
/// Both run inside one private mount namespace whose /etc carries the same
/// pathd.conf and resolv.conf, so the policy (expensive, constrained, types, on-demand)
/// and DNS are the same for both. For each criteria set (interface criteria, and the
/// conditions on the path: not expensive, not constrained) there are two PathMonitorPrinters that
/// live through every change, one on the daemon (`.daemon`), one with its own engine
/// (`.inProcess`), and at each check a third one started cold (`.inProcess`).
final class EngineComparison {
    /// A criteria set, as PathMonitorPrinter takes it and as a status request carries it.
    struct Criteria {
        let name: String
        let probeArguments: [String]
        let statusRequest: String
    }

    static let criteria = [
        Criteria(name: "any", probeArguments: [], statusRequest: #"{"op":"status"}"#),
        Criteria(name: "required wiredEthernet", probeArguments: ["--require", "wiredEthernet"],
                 statusRequest: #"{"op":"status","criteria":{"requiredInterfaceType":"wiredEthernet"}}"#),
        Criteria(name: "prohibited other", probeArguments: ["--prohibit", "other"],
                 statusRequest: #"{"op":"status","criteria":{"prohibitedInterfaceTypes":["other"]}}"#),
        notExpensive,
        Criteria(name: "not constrained", probeArguments: ["--not-constrained"],
                 statusRequest: #"{"op":"status","criteria":{"prohibitConstrainedPaths":true}}"#),
    ]

    /// The condition every path through vA fails (vA is expensive), in both engines.
    static let notExpensive = Criteria(name: "not expensive", probeArguments: ["--not-expensive"],
                                       statusRequest: #"{"op":"status","criteria":{"prohibitExpensivePaths":true}}"#)

    /// vA (a veth) reported as wired Ethernet and expensive; tunnels constrained; dial0
    /// on demand. Every setting appears in some path of the tests.
    static let configuration = """
        [Interface]
        Name=vA
        SetType=wiredEthernet
        Expensive=yes

        [Interface]
        Name=tun*
        Constrained=yes

        [Interface]
        Name=dial0
        OnDemand=yes

        """

    /// Every field of a path, as pathd's path lines and PathMonitorPrinter name them.
    static let pathFields = ["status", "unsatisfiedReason", "reasonInterface", "interfaces", "isExpensive",
                             "isConstrained", "supportsIPv4", "supportsIPv6", "supportsDNS", "gateways"]

    private struct Witnesses {
        let criteria: Criteria
        let daemon: ProgramProcess
        let inProcess: ProgramProcess
    }

    private let topology: VethTopology
    private let mounts: PrivateMounts
    private var witnesses: [Witnesses] = []
    private var programs: [ProgramProcess] = []

    /// Starts pathd and the probes in namespace A as it is now (the cold start).
    init(_ topology: VethTopology) throws {
        self.topology = topology
        mounts = try PrivateMounts(in: topology.a, stderrPath: topology.directory.path("holder.stderr"))
        try mounts.overlayEtc(["pathd/pathd.conf": Self.configuration,
                               "resolv.conf": "nameserver \(VethTopology.routerAddress)\n"],
                              directory: topology.directory.path("etc"))
        _ = try mounts.startDaemon(["--socket", topology.socketPath],
                                   stderrPath: topology.directory.path("pathd.stderr"))
        for criteria in Self.criteria {
            witnesses.append(Witnesses(criteria: criteria, daemon: try probe(.daemon, criteria),
                                       inProcess: try probe(.inProcess, criteria)))
        }
    }

    private enum Mode: String { case daemon, inProcess }

    private func probe(_ mode: Mode, _ criteria: Criteria) throws -> ProgramProcess {
        let command = [try BuiltProduct.url("PathMonitorPrinter").path, "--mode", mode.rawValue, "--socket",
                       topology.socketPath]
            + criteria.probeArguments
        let (executable, arguments) = mounts.execArguments(command)
        let program = try ProgramProcess(executable, arguments, stderrPath: topology.directory.path(
            "probe-\(programs.count)-\(mode.rawValue).stderr"))
        programs.append(program)
        return program
    }

    /// Waits until pathd's answer for any interface satisfies `expected`, then, for
    /// every criteria set, until both live probes report exactly pathd's path, and
    /// checks that a probe started now (cold) reports it as its first path.
    func check(_ description: String, _ expected: @escaping ([String: Any]) -> Bool) throws {
        var latest: [String: Any] = [:]
        try waitUntil("pathd: \(description)", detail: { "; its path: \(Self.text(latest))" }) {
            latest = try status(Self.criteria[0])
            // Settled first: a cold probe finds the gateway pathd is still resolving resolved.
            return expected(latest) && PathLine.hasSettledNetwork(latest)
        }
        for witness in witnesses {
            var reference: [String: Any] = [:]
            let label = "\(description) [\(witness.criteria.name)]"
            var differences: [String] = []
            try waitUntil("\(label): the live probes report pathd's path",
                          detail: { "; pathd: \(Self.text(reference))\n" + differences.joined(separator: "\n") }) {
                // pathd's answer now: an unidentified network is settled, but a late answer
                // from its gateway still names it, and the probes then follow pathd there.
                reference = try status(witness.criteria)
                let daemon = try report(witness.daemon)
                let inProcess = try report(witness.inProcess)
                differences = Self.differences("daemon mode", daemon, reference)
                    + Self.differences("in-process", inProcess, reference)
                    + (inProcess["source"] as? String
                       == "inProcess" ? [] : ["in-process source: \(Self.text(inProcess))"])
                    + ((daemon["source"] as? [String: Any])?["socketPath"] as? String == topology.socketPath
                        ? [] : ["daemon-mode source: \(Self.text(daemon))"])
                return differences.isEmpty
            }
            let cold = try probe(.inProcess, witness.criteria)
            defer { teardown("kill the cold probe") { try cold.kill() } }
            let first = try cold.waitForObject("\(label): the cold probe's first state") {
                $0["event"] as? String == "state"
            }
            // Against pathd's answer at each look too: a second link's gateway (tun0's) may
            // be named a moment after the first link settled, and the cold probe, started
            // later, can find it named before pathd's line says so.
            try waitUntil("\(label): pathd's path is the cold probe's first",
                          detail: { "; " + differences.joined(separator: "; ") }) {
                reference = try status(witness.criteria)
                differences = Self.differences("cold in-process", first, reference)
                return differences.isEmpty
            }
        }
    }

    /// Ends every probe (the daemon and the holder end with the namespace).
    func stop() {
        for program in programs { teardown("kill a probe") { try program.kill() } }
        teardown("end the mount namespace holder") { try mounts.stop() }
    }

    /// pathd's current path line for `criteria`, from a status request.
    func status(_ criteria: Criteria) throws -> [String: Any] {
        let client = try Subscriber(socketPath: topology.socketPath, request: criteria.statusRequest)
        defer { client.close() }
        return try client.waitFor("pathd's status for \(criteria.name)", PathLine.isPath)
    }

    private func report(_ probe: ProgramProcess) throws -> [String: Any] {
        try probe.send("report")
        return try probe.waitForObject("a report") { $0["event"] as? String == "report" }
    }

    /// What differs between a probe's line and pathd's path line: every field named
    /// in `pathFields`, and no field more.
    static func differences(_ who: String, _ line: [String: Any], _ reference: [String: Any]) -> [String] {
        guard let path = line["path"] as? [String: Any] else { return ["\(who): no path in \(text(line))"] }
        var differences: [String] = []
        if Set(path.keys) != Set(pathFields) { differences.append("\(who): fields \(path.keys.sorted())") }
        for field in pathFields where text(path[field]) != text(reference[field]) {
            differences.append("\(who): \(field) \(text(path[field])), pathd \(text(reference[field]))")
        }
        return differences
    }

    /// A JSON value as sorted-key text, for comparing and printing.
    static func text(_ value: Any?) -> String {
        guard let value else { return "(absent)" }
        do {
            let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
            return String(decoding: data, as: UTF8.self)
        } catch {
            return "(not JSON: \(value))"
        }
    }
}

/// Runs `body` with pathd and the probes started on the topology as it is, stopping the
/// probes afterwards whether `body` returns or throws.
func withEngineComparison(_ topology: VethTopology, _ body: (EngineComparison) throws -> Void) throws {
    let comparison = try EngineComparison(topology)
    defer { comparison.stop() }
    try body(comparison)
}
