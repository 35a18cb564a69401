// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import PathTestFixtures
import Testing

/// The lines of `Golden/Compatibility/<name>`: `future-v1.jsonl` is what a newer pathd
/// of protocol 1 may send (new reasons, interface types, connectivity states, history
/// events, error codes, statuses, a new message type, extra fields in every object);
/// `oldest-v1.jsonl` is the first version of every golden file, as the oldest pathd
/// of protocol 1 sent it.
private func compatibilityLines(_ name: String) throws -> [[UInt8]] {
    try Fixture.golden("Compatibility/" + name).split(separator: UInt8(ascii: "\n")).map(Array.init)
}

private func decodeAll(_ name: String) throws -> [ServerMessage] {
    try compatibilityLines(name).map { try ServerMessage.decode(line: $0) }
}

/// Every enumerated value in `message` that this version does not know, by name.
private func unrecognizedValues(in message: ServerMessage) -> [String] {
    func path(_ path: Path) -> [String] {
        [path.status.isRecognized ? nil : path.status.rawValue,
         path.unsatisfiedReason.flatMap { $0.isRecognized ? nil : $0.rawValue },
         path.isExpensiveSetBy.flatMap { $0.isRecognized ? nil : $0.rawValue },
         path.isConstrainedSetBy.flatMap { $0.isRecognized ? nil : $0.rawValue }].compactMap { $0 }
            + path.availableInterfaces.flatMap { interface in
                [interface.type.isRecognized ? nil : interface.type.rawValue,
                 interface.network.flatMap { $0.state.isRecognized ? nil : $0.state.rawValue },
                 interface.network?.anchor.flatMap { $0.isRecognized ? nil : $0.rawValue }].compactMap { $0 }
            }
    }
    func state(_ connectivity: Connectivity) -> [String] {
        connectivity.state.isRecognized ? [] : [connectivity.state.rawValue]
    }
    switch message {
    case .path(let update, _): return path(update.path) + state(update.connectivity)
    case .error(let code, _, _): return code.isRecognized ? [] : [code.rawValue]
    case .interfaces(_, let reports, _):
        return reports.flatMap { report in
            (report.type.isRecognized ? [] : [report.type.rawValue]) + state(report.connectivity)
                + (report.unusableReason.flatMap { reason in
                    reason.isRecognized ? nil : [reason.rawValue] } ?? [])
        }
    case .history(_, _, let entries, _):
        return entries.flatMap { entry -> [String] in
            switch entry.event {
            case .unrecognized(let name): return [name]
            case .change(let change), .route(_, let change):
                return path(Path(status: change.status, unsatisfiedReason: change.unsatisfiedReason))
            case .started, .stopped: return []
            }
        }
    case .unrecognized(let type, _): return [type]
    case .route(let report, _, _):
        return path(Path(status: report.status, unsatisfiedReason: report.unsatisfiedReason,
                         availableInterfaces: report.interface.map { [$0] } ?? []))
    default:
        // No open enumerated value (hello, resync, pong, unsubscribed, reloaded, reported,
        // metrics): a new message type that carries one adds its case above, as
        // GoldenMessageTests makes it name its golden file.
        return []
    }
}

private typealias UnusableReason = InterfaceReport.UnusableReason

@Suite("forward and backward compatibility within protocol 1")
struct CompatibilityTests {
    @Test("every line of a newer daemon decodes; unknown values keep their names, unknown fields are ignored")
    func futureLinesDecode() throws {
        let messages = try decodeAll("future-v1.jsonl")
        #expect(messages.count == 13)
        guard case .unrecognized(let type, let whole) = messages[0] else {
            Issue.record("a new message type: \(messages[0])")
            return
        }
        #expect(type == "notice")
        #expect(whole["text"]?.stringValue == "a message type this client has never seen")
        #expect(messages[1] == .hello(protocolVersion: 1, daemonVersion: "9.0.0", generation: .first))

        guard case .path(let update, let id) = messages[2], case .path(let degraded, nil) = messages[3] else {
            Issue.record("two paths: \(messages[2]), \(messages[3])")
            return
        }
        #expect(id == .string("future"))
        #expect(update.path.status == .unsatisfied)
        #expect(update.path.unsatisfiedReason == .unrecognized("noSignal"))
        #expect(update.path.reasonInterface == "wwan0")
        #expect(update.path.summary == "unsatisfied: noSignal on wwan0")
        #expect(update.path.availableInterfaces == [Interface(name: "sat0", index: InterfaceIndex(rawValue: 7),
                                                              type: .unrecognized("satellite"))])
        #expect(update.path.isExpensive && update.path.isConstrained && update.path.supportsDNS)
        #expect(update.connectivity.state == .unrecognized("throttled"))
        #expect(update.connectivity.evidence?.url == "http://check.example/")
        #expect(update.connectivity.evidence?.httpStatus == 204)
        #expect(degraded.path.status == .unrecognized("degraded"))
        #expect(degraded.path.availableInterfaces.map(\.type) == [.wiredEthernet])
        #expect(degraded.connectivity == .unknown)
        #expect(degraded.path.network == LinkNetwork(state: .unrecognized("roaming"),
                                                     id: NetworkID("00112233445566778899aabbccddeeff"),
                                                     name: "office", anchor: .unrecognized("ssid")))
        #expect(degraded.path.isExpensiveSetBy == .unrecognized("billingPlan"))
        #expect(degraded.path.isConstrainedSetBy == .type)

        #expect(messages[4] == .resync(reason: "a reason of the future", generation: Generation(rawValue: 2),
                                       id: .string("future")))
        #expect(messages[5] == .pong(id: .integer(1)))
        #expect(messages[6] == .unsubscribed(id: .string("future")))
        #expect(messages[7] == .reported(id: .integer(2)))
        #expect(messages[8] == .error(code: .unrecognized("rateLimited"), message: "too many requests; retry in 2 s",
                                      id: .integer(3)))
        #expect(messages[9] == .reloaded(warnings: ["pathd.conf:3: a warning"], id: .integer(4)))

        guard case .interfaces(_, let reports, .integer(5)) = messages[10], let report = reports.first else {
            Issue.record("an interfaces reply: \(messages[10])")
            return
        }
        #expect(report.type == .unrecognized("satellite"))
        #expect(report.kind == "starlink")
        #expect(report.operState == .unknown, "an operstate this version does not know reads as IF_OPER_UNKNOWN")
        #expect(report.flags == [.up, .running, .lowerUp], "unknown flag names are skipped")
        #expect(report.addresses.map(\.flags) == [[.permanent]])
        #expect(report.unusableReason?.rawValue == "weatherFade")
        #expect(report.connectivity.state == .unrecognized("throttled"))

        guard case .metrics(.openMetrics, "# EOF\n", .integer(6)) = messages[11] else {
            Issue.record("a metrics reply: \(messages[11])")
            return
        }
        guard case .history(10, .persistent, let entries, .integer(7)) = messages[12] else {
            Issue.record("a history reply: \(messages[12])")
            return
        }
        #expect(entries.map(\.eventName) == ["started", "suspended", "change"])
        #expect(entries[1].event == .unrecognized("suspended"))
        guard case .change(let change) = entries[2].event else {
            Issue.record("a change: \(entries[2])")
            return
        }
        #expect(change.unsatisfiedReason == .unrecognized("noSignal"))
        #expect(change.explanation == "noSignal on wwan0")
    }

    @Test("a summary of a history with an event it does not know passes over it")
    func historySummarySkipsUnknownEvents() throws {
        let messages = try decodeAll("future-v1.jsonl")
        guard case .history(_, _, let entries, _) = messages[12] else {
            Issue.record("a history reply: \(messages[12])")
            return
        }
        let summary = HistorySummary.summarize(entries, now: entries[2].time)
        #expect(summary.outages.map(\.reasons) == [["noSignal on wwan0"]])
        #expect(summary.periods.count == 1)
    }

    @Test("an unknown value is written back as the name it came with")
    func unrecognizedValuesRoundTrip() throws {
        for line in try compatibilityLines("future-v1.jsonl").dropFirst() {
            let message = try ServerMessage.decode(line: line)
            #expect(try ServerMessage.decode(line: message.encoded().dropLast()) == message)
        }
        let notice = try ServerMessage.decode(line: compatibilityLines("future-v1.jsonl")[0])
        #expect(try ServerMessage.decode(line: notice.encoded().dropLast()) == notice)
    }

    @Test("every value of every oldest protocol 1 line is known to this version, and reads the same after a round trip")
    func oldestLinesDecode() throws {
        let lines = try compatibilityLines("oldest-v1.jsonl")
        #expect(lines.count == 28)
        for line in lines {
            let message = try ServerMessage.decode(line: line)
            let type = try Fixture.object(line)["type"]?.stringValue
            #expect(!message.isUnrecognized, "\(type ?? "?") is a type this version knows")
            #expect(unrecognizedValues(in: message).isEmpty, "\(message)")
            #expect(try ServerMessage.decode(line: message.encoded().dropLast()) == message)
        }
        // What the oldest lines lack, today's fields default to: no tunnel, connectivity unknown.
        guard case .path(let update, nil) = try ServerMessage.decode(line: lines[1]) else {
            Issue.record("the oldest satisfied path")
            return
        }
        #expect(update.path.availableInterfaces.allSatisfy { !$0.isTunnel })
        #expect(update.connectivity == .unknown)
        #expect(update.path.status == .satisfied)
        #expect(update.path.availableInterfaces.map(\.type) == [.wifi, .wiredEthernet])
    }

    @Test("the oldest interfaces reply names its reasons in words only; they read as today's codes")
    func oldestInterfacesReasons() throws {
        let messages = try decodeAll("oldest-v1.jsonl")
        let reports = messages.flatMap { message -> [InterfaceReport] in
            if case .interfaces(_, let reports, _) = message { reports } else { [] }
        }
        #expect(reports.map(\.unusableReason) == [.loopback, nil, .dormant])
    }

    @Test("the daemon stays strict: a client may not ask with a value this version does not know",
          arguments: [#"{"op":"status","criteria":{"requiredInterfaceType":"satellite"}}"#,
                      #"{"op":"subscribe","criteria":{"prohibitedInterfaceTypes":["satellite"]}}"#,
                      #"{"op":"status","criteria":{"requiredInterfaceType":"wifi","newField":1}}"#,
                      #"{"op":"reportConnectivity","connectivity":{"state":"throttled","url":"http://x/","# +
                      #""interface":"eth0","httpStatus":204,"redirectTarget":null,"bytesReceived":0,"sha256":null,"# +
                      #""elapsedMilliseconds":1,"checkedAt":"2026-12-01T08:30:00Z","error":null}}"#])
    func requestsStayStrict(line: String) {
        #expect(throws: RequestError.self) { try Request.parse(line: Array(line.utf8)) }
    }

    @Test("the configuration stays strict: SetType= and Type= accept only the types this version knows")
    func configurationStaysStrict() {
        #expect(InterfaceType(known: "satellite") == nil)
        #expect(InterfaceType(rawValue: "satellite") == .unrecognized("satellite"))
        #expect(InterfaceType(rawValue: "wifi") == .wifi)
        #expect(InterfaceType.knownNames == "wifi, cellular, wiredEthernet, loopback, other")
        #expect(UnsatisfiedReason.allCases.allSatisfy { UnsatisfiedReason(rawValue: $0.rawValue) == $0 })
        #expect(ErrorCode.allCases.allSatisfy { ErrorCode(known: $0.rawValue) == $0 })
        #expect(ConnectivityState.allCases.allSatisfy { $0.isRecognized })
        #expect(!PathStatus.unrecognized("degraded").isRecognized)
    }
}
