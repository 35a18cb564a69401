// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures
import PathModel
import PathProtocol
import Testing

/// The interface reports pinned by Golden/interfaces.jsonl: a loopback, a wired link
/// with a tentative and a deprecated address on a network a `[Network]` section makes
/// expensive (with its facts, as a privileged peer sees them), a dormant modem the
/// policy marks expensive and constrained.
private let goldenReports: [InterfaceReport] = [
    InterfaceReport(name: "lo", index: InterfaceIndex(rawValue: 1), type: .loopback, operState: .unknown,
                    flags: [.up, .running, .lowerUp, .loopback],
                    addresses: [InterfaceAddress(interface: InterfaceIndex(rawValue: 1),
                                                 address: Fixture.ip("127.0.0.1"),
                                                 prefixLength: 8, flags: .permanent, scope: .host)],
                    unusableReason: .loopback),
    InterfaceReport(name: "eth0", index: InterfaceIndex(rawValue: 2), type: .wiredEthernet, operState: .up,
                    flags: [.up, .running, .lowerUp],
                    addresses: [
                        InterfaceAddress(interface: InterfaceIndex(rawValue: 2), address: Fixture.ip("192.0.2.2"),
                                         prefixLength: 24, flags: .permanent),
                        InterfaceAddress(interface: InterfaceIndex(rawValue: 2), address: Fixture.ip("2001:db8::2"),
                                         prefixLength: 64, flags: .tentative),
                        InterfaceAddress(interface: InterfaceIndex(rawValue: 2), address: Fixture.ip("fe80::1"),
                                         prefixLength: 64, flags: .deprecated, scope: .link),
                    ], isExpensive: true, isExpensiveSetBy: .network, network: Fixture.home,
                    networkFacts: NetworkFacts(anchor: .gatewayMAC,
                                               gatewayMACs: [LinkLayerAddress("02:00:00:00:00:01")!]),
                    connectivity: Fixture.full),
    InterfaceReport(name: "wwan0", index: InterfaceIndex(rawValue: 5), type: .cellular, operState: .dormant,
                    flags: [.up, .dormant], isExpensive: true, isConstrained: true, isConstrainedSetBy: .interface,
                    unusableReason: .dormant),
]

/// The history pinned by Golden/history.jsonl: a start, an outage and its end, a stop.
private let goldenHistory: [HistoryEntry] = [
    HistoryEntry(time: Timestamp(wall: .seconds(1_796_150_000), monotonic: .seconds(100)), event: .started),
    HistoryEntry(time: Timestamp(wall: .milliseconds(1_796_150_467_250), monotonic: .milliseconds(567_250)),
                 event: .change(PathChange(status: .unsatisfied, unsatisfiedReason: .noCarrier, reasonInterface: "eth0",
                                           generation: .first, sequence: 2))),
    HistoryEntry(time: Timestamp(wall: .milliseconds(1_796_150_659_500), monotonic: .milliseconds(759_500)),
                 event: .change(PathChange(status: .satisfied, interfaces: ["eth0", "wlan0"], generation: .first,
                                           sequence: 3))),
    HistoryEntry(time: Timestamp(wall: .milliseconds(1_796_150_700_001), monotonic: .milliseconds(800_001)),
                 event: .stopped),
]

/// The networks pinned by Golden/networks.jsonl: a current one on two links, named,
/// one behind a virtual router seen before, and a WireGuard tunnel's, told by its kind.
private let goldenNetworks: [SeenNetwork] = [
    SeenNetwork(id: NetworkID("3f2a91c0d4e5f6a7b8c9d0e1f2a3b4c5")!, name: "home",
                facts: NetworkFacts(anchor: .gatewayMAC, gatewayMACs: [LinkLayerAddress("02:00:00:00:00:01")!]),
                interfaces: ["wlan0", "enx00e04c680001"], domains: ["home.example"],
                firstSeen: .seconds(1_796_150_000), lastSeen: .milliseconds(1_796_160_000_500), isCurrent: true),
    SeenNetwork(id: NetworkID("9b0c1d2e3f405162738495a6b7c8d9e0")!,
                facts: NetworkFacts(anchor: .virtualRouter, gatewayMACs: [LinkLayerAddress("00:00:5e:00:01:01")!],
                                    gateways: [Fixture.ip("10.1.0.1")], prefix: IPPrefix("10.1.0.0/16")),
                interfaces: ["eth0"], firstSeen: .seconds(1_796_000_000), lastSeen: .seconds(1_796_003_600)),
    SeenNetwork(id: NetworkID("c0ffee00112233445566778899aabbcc")!,
                facts: NetworkFacts(anchor: .prefix, prefix: IPPrefix("10.8.0.0/24"), linkKind: "wireguard"),
                interfaces: ["wg0"], firstSeen: .seconds(1_795_900_000), lastSeen: .seconds(1_795_990_000)),
]

/// The exposition pinned by Golden/metrics.jsonl, in each format.
private let goldenMetrics: [MetricFamily] = [
    .stateSet("pathd_path_status", help: "Status of the default path.", states: ["satisfied", "unsatisfied"],
              active: ["satisfied"]),
    .counter("pathd_path_unsatisfied_seconds", unit: "seconds", help: "Time unsatisfied.", value: 12.5),
    .info("pathd_build", help: "pathd's version.", labels: [MetricLabel("version", "0.1.0")]),
]

/// Every message type, and the golden file whose lines are their exact encodings.
private let goldenFiles: [(file: String, messages: [ServerMessage])] = [
    ("hello.jsonl", [.hello(protocolVersion: 1, daemonVersion: "0.1.0", generation: .first)]),
    ("path-satisfied.jsonl", [.path(Fixture.satisfied, id: nil)]),
    ("path-unsatisfied.jsonl", [.path(Fixture.unsatisfied, id: nil)]),
    ("path-with-id.jsonl",
     [.path(Fixture.satisfied, id: .string("watch")), .path(Fixture.unsatisfied, id: .integer(17)),
      .path(Fixture.expensiveExcluded, id: .string("backup")), .path(Fixture.networkExcluded, id: .string("sync"))]),
    ("resync.jsonl", [
        .resync(reason: "kernel receive buffer overrun (ENOBUFS): events lost", generation: Generation(rawValue: 2),
                id: nil),
        .resync(reason: "kernel receive buffer overrun (ENOBUFS): events lost", generation: Generation(rawValue: 2),
                id: .string("wifi")),
    ]),
    ("pong.jsonl", [.pong(id: nil), .pong(id: .integer(99))]),
    ("reported.jsonl", [.reported(id: nil), .reported(id: .integer(0))]),
    ("unsubscribed.jsonl", [.unsubscribed(id: .string("wifi"))]),
    ("error.jsonl", [
        .error(code: .badJSON, message: "request is not valid JSON: unexpected character at byte 0", id: nil),
        .error(code: .unknownOp, message: "unknown op \"launch\"", id: .integer(3)),
        .error(code: .badArgument, message: "\"op\" must be a string, got number", id: nil),
        .error(code: .unknownSubscription, message: "no subscription with this id on this connection",
               id: .string("wifi")),
        .error(code: .lineTooLong, message: "request line longer than 65536 bytes; closing", id: nil),
        .error(code: .tooManyClients, message: "pathd serves at most 1024 clients at once", id: nil),
        .error(code: .permissionDenied, message: "reload is allowed for root and the daemon's own user only",
               id: .string("r")),
        .error(code: .permissionDenied,
               message: "reportConnectivity is allowed for root and the daemon's own user (pathd-probe's) only",
               id: .integer(1)),
        .error(code: .shuttingDown, message: "pathd is stopping: SIGTERM", id: nil),
        .error(code: .configInvalid,
               message: "configuration not reloaded: /etc/pathd/pathd.conf:12: Expensive= expects a boolean (yes, " +
                        "no, true, false, on, off, 1, 0), got \"maybe\"",
               id: .integer(5)),
        .error(code: .limitExceeded,
               message: "this connection already holds 64 subscriptions (MaxSubscriptionsPerClient=); unsubscribe " +
                        "one first",
               id: .string("s65")),
        .error(code: .lookupFailed,
               message: "the kernel could not be asked for the route to 198.51.100.7: the network monitor is " +
                        "restarting; ask again",
               id: .integer(7)),
        .error(code: .unknownNetwork,
               message: "no network is named \"hotel\": no [Network] section of pathd.conf has Name=hotel, and it " +
                        "is no network ID",
               id: .string("sync")),
    ]),
    ("reloaded.jsonl", [
        .reloaded(warnings: [], id: nil),
        .reloaded(warnings: ["/etc/pathd/pathd.conf:7: unknown key Colour= in [Daemon]; ignored"], id: .string("r1")),
    ]),
    ("interfaces.jsonl", [
        .interfaces(generation: Generation(rawValue: 4), interfaces: goldenReports, id: .string("ifs")),
        .interfaces(generation: .first, interfaces: [], id: nil),
    ]),
    ("metrics.jsonl", [
        .metrics(format: .openMetrics, text: Exposition.render(goldenMetrics, as: .openMetrics), id: .string("m")),
        .metrics(format: .prometheus, text: Exposition.render(goldenMetrics, as: .prometheus), id: nil),
    ]),
    ("route.jsonl", [
        .route(RouteReport(destination: Fixture.ip("198.51.100.7"), status: .satisfied,
                           interface: Interface(name: "eth0", index: InterfaceIndex(rawValue: 2), type: .wiredEthernet),
                           source: Fixture.ip("192.0.2.2"), gateway: Fixture.ip("192.0.2.1"), table: 254),
               generation: Generation(rawValue: 3), id: .integer(7)),
        .route(RouteReport(destination: Fixture.ip("2001:db8:ffff::1"), status: .unsatisfied,
                           unsatisfiedReason: .noRoute),
               generation: .first, id: nil),
        .route(RouteReport(destination: Fixture.ip("203.0.113.9"), status: .unsatisfied, unsatisfiedReason: .noCarrier,
                           reasonInterface: "wwan0",
                           interface: Interface(name: "wwan0", index: InterfaceIndex(rawValue: 5), type: .cellular),
                           source: Fixture.ip("10.64.0.2"), table: 100, isExpensive: true),
               generation: Generation(rawValue: 2), id: .string("office")),
    ]),
    ("route-update.jsonl", [
        .routeUpdate(RouteUpdate(generation: Generation(rawValue: 3), sequence: 1, report: RouteReport(
            destination: Fixture.ip("198.51.100.7"), status: .satisfied,
            interface: Interface(name: "wg0", index: InterfaceIndex(rawValue: 7), type: .other, isTunnel: true),
            source: Fixture.ip("10.8.0.2"), table: 51820)), id: .string("db")),
        .routeUpdate(RouteUpdate(generation: Generation(rawValue: 3), sequence: 2, report: RouteReport(
            destination: Fixture.ip("198.51.100.7"), status: .unsatisfied, unsatisfiedReason: .noRoute)),
            id: .string("db")),
        .routeUpdate(RouteUpdate(generation: Generation(rawValue: 4), sequence: 3, report: RouteReport(
            destination: Fixture.ip("fe80::1"), status: .unsatisfied, unsatisfiedReason: .noInterface,
            reasonInterface: "usb0")), id: nil),
    ]),
    ("history.jsonl", [
        .history(capacity: 1000, persistence: .persistent, entries: goldenHistory, id: .string("h")),
        .history(capacity: 10, persistence: .inMemory(because: nil), entries: [], id: nil),
    ]),
    ("networks.jsonl", [
        .networks(capacity: 256, persistence: .persistent, networks: goldenNetworks, id: .string("n")),
        .networks(capacity: 256, persistence: .inMemory(
                    because: "pathd has no state directory (STATE_DIRECTORY is not set)"), networks: [], id: nil),
    ]),
    ("history-not-persistent.jsonl", [
        .history(capacity: 1000, persistence: .inMemory(
                    because: "cannot append to /var/lib/pathd/history.jsonl: No space left on device"),
                 entries: [goldenHistory[0]], id: .string("h")),
        .history(capacity: 1000, persistence: .inMemory(
                    because: "pathd has no state directory (STATE_DIRECTORY is not set)"), entries: [], id: nil),
    ]),
]

/// The golden file that pins a message's type. No `default`: a new message type does not
/// compile here until it names its golden file; `everyKindIsPinned` fails until a golden
/// file pins a line of each `ServerMessage.Kind`.
private func goldenFile(pinning message: ServerMessage) -> String {
    switch message {
    case .hello: "hello.jsonl"
    case .path(let update, nil): update.path.status == .satisfied ? "path-satisfied.jsonl" : "path-unsatisfied.jsonl"
    case .path: "path-with-id.jsonl"
    case .resync: "resync.jsonl"
    case .pong: "pong.jsonl"
    case .unsubscribed: "unsubscribed.jsonl"
    case .error: "error.jsonl"
    case .reloaded: "reloaded.jsonl"
    case .interfaces: "interfaces.jsonl"
    case .reported: "reported.jsonl"
    case .metrics: "metrics.jsonl"
    case .history(_, .inMemory(because: _?), _, _): "history-not-persistent.jsonl"
    case .history: "history.jsonl"
    case .route: "route.jsonl"
    case .routeUpdate: "route-update.jsonl"
    case .networks: "networks.jsonl"
    // No daemon of this version sends one: a newer daemon's, read by CompatibilityTests.
    case .unrecognized: "Compatibility/future-v1.jsonl"
    }
}

/// The golden files whose bytes another suite pins, beside the code that makes them: the
/// error lines the request parser's refusals become, the `route` and `reportLease` requests' forms, what
/// a newer and the oldest pathd of protocol 1 send. `everyGoldenFileIsRead` reads them too.
private let pinnedElsewhere: [String: String] = [
    "error-unknown-field.jsonl": "RefusedRequestGoldenTests",
    "route-request.jsonl": "RouteMessageTests",
    "lease-request.jsonl": "LeaseRequestTests",
    "Compatibility/future-v1.jsonl": "CompatibilityTests",
    "Compatibility/oldest-v1.jsonl": "CompatibilityTests",
    "Compatibility/networks-file-linkKind.jsonl": "NetworksSeenTests",
]

/// The golden files whose lines are lines of a file pathd keeps, not messages: each is
/// read here as a seen network.
private let keptFileLines: Set<String> = ["Compatibility/networks-file-linkKind.jsonl"]

/// Every file under Golden/, by its path below it.
private func goldenDirectoryFiles() throws -> [String] {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    guard let walk = FileManager.default.enumerator(atPath: directory.path) else {
        throw HarnessError("cannot list \(directory.path)")
    }
    return walk.compactMap { $0 as? String }.filter { $0.hasSuffix(".jsonl") }.sorted()
}

/// The wire form of every message, byte for byte. A failure here is a protocol change:
/// fix the encoder, or change the golden file in a commit that says so (docs/PROTOCOL.md).
@Suite("golden wire form")
struct GoldenMessageTests {
    @Test(arguments: goldenFiles.map(\.file))
    func encodingMatchesTheGoldenFile(file: String) throws {
        let messages = try #require(goldenFiles.first { $0.file == file }?.messages)
        let expected = try Fixture.golden(file)
        let encoded = messages.flatMap { $0.encoded() }
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(encoded == expected)
    }

    @Test(arguments: goldenFiles.map(\.file))
    func goldenLinesDecodeToTheirMessages(file: String) throws {
        let messages = try #require(goldenFiles.first { $0.file == file }?.messages)
        let lines = try Fixture.golden(file).split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == messages.count)
        for (line, message) in zip(lines, messages) {
            #expect(try ServerMessage.decode(line: line) == message)
        }
    }

    /// Each example names the file it is in (`goldenFile(pinning:)`, a switch without a
    /// default), and each message type on the wire has a line pinned: a new kind with
    /// only its switch arms fails here until its golden file holds an example.
    @Test func everyKindIsPinned() throws {
        for (file, messages) in goldenFiles {
            for message in messages { #expect(goldenFile(pinning: message) == file, "\(message) is pinned in \(file)") }
        }
        var pinnedKinds: Set<ServerMessage.Kind> = []
        for (file, _) in goldenFiles {
            for line in try Fixture.golden(file).split(separator: UInt8(ascii: "\n")) {
                let type = try Fixture.object(Array(line))["type"]?.stringValue
                if let kind = type.flatMap(ServerMessage.Kind.init(rawValue:)) { pinnedKinds.insert(kind) }
            }
        }
        let unpinned = ServerMessage.Kind.allCases.filter { !pinnedKinds.contains($0) }
        #expect(unpinned.isEmpty, "no golden line pins the message types \(unpinned.map(\.rawValue))")
    }

    /// Every file under Golden/ is pinned: by this suite's table, or by the suite named in
    /// `pinnedElsewhere`; and each line of every one is read here, as a request or a
    /// message, without a failure and with no value this version does not know (but the
    /// future pathd's, which exist to be unknown).
    @Test func everyGoldenFileIsRead() throws {
        let files = try goldenDirectoryFiles()
        #expect(files.count >= goldenFiles.count + pinnedElsewhere.count, "\(files)")
        let pinned = Set(goldenFiles.map(\.file)).union(pinnedElsewhere.keys)
        for file in files {
            #expect(pinned.contains(file), "Golden/\(file) is pinned by no test: add it to goldenFiles")
            for line in try Fixture.golden(file).split(separator: UInt8(ascii: "\n")) {
                if keptFileLines.contains(file) {
                    _ = try SeenNetwork.decode(line: line)
                    continue
                }
                if try Fixture.object(Array(line))["op"] != nil {
                    _ = try Request.parse(line: line)
                    continue
                }
                let message = try ServerMessage.decode(line: line)
                if file != "Compatibility/future-v1.jsonl" {
                    #expect(!message.isUnrecognized, "Golden/\(file): \(String(decoding: line, as: UTF8.self))")
                }
            }
        }
        for file in pinned { #expect(files.contains(file), "Golden/\(file) is missing") }
    }

    @Test func everyErrorCodeIsPinned() throws {
        let pinned = try Fixture.golden("error.jsonl").split(separator: UInt8(ascii: "\n")).map { line in
            try Fixture.object(Array(line))["code"]?.stringValue
        }
        #expect(Set(pinned.compactMap { $0 }) == Set(ErrorCode.allCases.map(\.rawValue)))
    }
}
