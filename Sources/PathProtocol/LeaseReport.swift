// SPDX-License-Identifier: Apache-2.0
import PathModel

/// The `lease` object of a `reportLease` request.
extension LeaseReport {
    /// Its members, in the order they are written; nothing else is taken.
    enum Member: String, CaseIterable {
        case family, ended, address, server, domains, hints, captivePortal
    }

    func write(to writer: inout JSONWriter, key: String) {
        writer.beginObject(key)
        writer.member(Member.family.rawValue, family.rawValue)
        switch self {
        case .ended:
            writer.member(Member.ended.rawValue, true)
        case .bound(let lease):
            if let address = lease.address { writer.member(Member.address.rawValue, address) }
            if let server = lease.server { writer.member(Member.server.rawValue, server) }
            if !lease.hints.dnsDomains.isEmpty {
                writer.beginArray(Member.domains.rawValue)
                for domain in lease.hints.dnsDomains { writer.element(domain) }
                writer.endArray()
            }
            if !lease.hints.names.isEmpty {
                writer.beginArray(Member.hints.rawValue)
                for name in lease.hints.names.map(\.rawValue).sorted() { writer.element(name) }
                writer.endArray()
            }
            if let portal = lease.hints.captivePortal { writer.member(Member.captivePortal.rawValue, portal) }
        }
        writer.endObject()
    }

    /// Reads a `lease` object strictly, as pathd reads every request: a member it does
    /// not know, a value of the wrong type or out of bounds, an unknown hint, is an error
    /// naming it.
    static func decode(_ value: JSONValue) throws(LeaseDecodingError) -> LeaseReport {
        guard case .object(let members) = value else { throw .init("\"lease\" must be an object") }
        if let unknown = members.keys.filter({ Member(rawValue: $0) == nil }).min() {
            let known = listedInWords(Member.allCases.map(\.rawValue))
            throw .init("unknown lease field \"\(unknown)\": a lease has \(known)")
        }
        func present(_ member: Member) -> JSONValue? {
            members[member.rawValue].flatMap { $0.isNull ? nil : $0 }
        }
        guard let familyName = present(.family)?.stringValue, let family = AddressFamily(rawValue: familyName) else {
            throw .init("a lease needs \"family\": ipv4 or ipv6")
        }
        if let ended = present(.ended) {
            guard ended.boolValue == true else { throw .init("lease \"ended\" must be true when given") }
            let others = Member.allCases.filter { $0 != .family && $0 != .ended && present($0) != nil }
            if let other = others.first {
                throw .init("an ended lease has only \"family\" and \"ended\", not \"\(other.rawValue)\"")
            }
            return .ended(family)
        }
        var lease = DHCPLease(family: family)
        if let value = present(.address) {
            guard let text = value.stringValue, let address = IPAddress(text), address.family == family else {
                throw .init("lease \"address\" must be an \(family == .ipv4 ? "IPv4" : "IPv6") address as a string")
            }
            lease.address = address
        }
        if let value = present(.server) {
            guard let text = value.stringValue else { throw .init("lease \"server\" must be a string") }
            if let refusal = DHCPLease.serverRefusal(text, family: family) {
                throw .init("lease \"server\": \(refusal)")
            }
            lease.server = text.lowercased()
        }
        if let value = present(.domains) {
            guard let list = value.arrayValue else { throw .init("lease \"domains\" must be an array of domain names") }
            guard list.count <= NetworkHints.maximumDomains else {
                throw .init("lease \"domains\" holds \(list.count) names; at most \(NetworkHints.maximumDomains)")
            }
            for element in list {
                guard let text = element.stringValue, let name = DomainName.canonical(text) else {
                    let shown = element.stringValue.map { "\"\($0)\"" } ?? element.typeName
                    throw .init("lease \"domains\" must hold domain names (letters, digits, hyphens; at most "
                        + "\(DomainName.maximumBytes) bytes), got \(shown)")
                }
                if !lease.hints.dnsDomains.contains(name) { lease.hints.dnsDomains.append(name) }
            }
        }
        if let value = present(.hints) {
            guard let list = value.arrayValue else { throw .init("lease \"hints\" must be an array of hint names") }
            let leaseHints = NetworkHint.allCases.filter(\.comesFromLeases).map(\.rawValue)
            for element in list {
                guard let name = element.stringValue, let hint = NetworkHint(known: name), hint.comesFromLeases else {
                    let shown = element.stringValue.map { "\"\($0)\"" } ?? element.typeName
                    throw .init("unknown hint \(shown): a lease's hints are \(listedInWords(leaseHints))")
                }
                lease.hints.names.insert(hint)
            }
        }
        if let value = present(.captivePortal) {
            guard let text = value.stringValue else { throw .init("lease \"captivePortal\" must be a string") }
            switch CaptivePortalURI.read(text) {
            case .portal(let uri): lease.hints.captivePortal = uri
            case .none: break
            case .refused(let why): throw .init(why)
            }
        }
        return .bound(lease)
    }
}

/// Why a `lease` object could not be read.
struct LeaseDecodingError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
