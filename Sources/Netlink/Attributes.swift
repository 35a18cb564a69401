// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// The attributes of one received message, indexed by type, as `nlmsg_parse` /
/// `nla_parse_nested` laid them out in a table on the stack (no heap allocation).
/// Every getter checks the payload length first: `nla_get_u32` alone would read past
/// a short attribute.
struct Attributes {
    private let table: UnsafeMutableBufferPointer<UnsafeMutablePointer<nlattr>?>

    /// Parses the attributes after a fixed header of `headerSize` bytes (`nlmsg_parse`)
    /// and calls `body` with them; nil when the message is malformed.
    static func parse<Result>(_ header: UnsafeMutablePointer<nlmsghdr>, headerSize: Int, maxType: Int,
                              _ body: (Attributes) -> Result) -> Result? {
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<nlattr>?.self, capacity: maxType + 1) { table in
            guard nlmsg_parse(header, Int32(headerSize), table.baseAddress, Int32(maxType), nil) == 0 else {
                return nil
            }
            return body(Attributes(table: table))
        }
    }

    /// Parses the attributes nested in `attribute` (`nla_parse_nested`).
    static func parseNested<Result>(_ attribute: UnsafeMutablePointer<nlattr>, maxType: Int,
                                    _ body: (Attributes) -> Result) -> Result? {
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<nlattr>?.self, capacity: maxType + 1) { table in
            guard nla_parse_nested(table.baseAddress, Int32(maxType), attribute, nil) == 0 else { return nil }
            return body(Attributes(table: table))
        }
    }

    /// Parses a bare run of attributes (`nla_parse`), as inside a `struct rtnexthop`.
    static func parse<Result>(attributesAt head: UnsafeMutableRawPointer, length: Int, maxType: Int,
                              _ body: (Attributes) -> Result) -> Result? {
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<nlattr>?.self, capacity: maxType + 1) { table in
            guard nla_parse(table.baseAddress, Int32(maxType), head.assumingMemoryBound(to: nlattr.self),
                            Int32(length), nil) == 0 else { return nil }
            return body(Attributes(table: table))
        }
    }

    subscript(_ type: Int) -> UnsafeMutablePointer<nlattr>? {
        type >= 0 && type < table.count ? table[type] : nil
    }

    func payload(_ type: Int) -> UnsafeRawBufferPointer? {
        guard let attribute = self[type], let data = nla_data(attribute) else { return nil }
        return UnsafeRawBufferPointer(start: data, count: Int(nla_len(attribute)))
    }

    func uint8(_ type: Int) -> UInt8? {
        guard let bytes = payload(type), bytes.count >= 1 else { return nil }
        return bytes[0]
    }

    /// A host-order u32 attribute.
    func uint32(_ type: Int) -> UInt32? {
        guard let bytes = payload(type), bytes.count >= 4 else { return nil }
        return bytes.loadUnaligned(as: UInt32.self)
    }

    /// A NUL-terminated string attribute (IFLA_IFNAME, IFLA_INFO_KIND).
    func string(_ type: Int) -> String? {
        guard let bytes = payload(type) else { return nil }
        let text = bytes.prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }

    /// An address attribute of 4 or 16 bytes (IFA_LOCAL, RTA_GATEWAY…).
    func ipAddress(_ type: Int) -> IPAddress? {
        guard let bytes = payload(type) else { return nil }
        return IPAddress(bytes: bytes)
    }
}

extension UnsafeMutablePointer where Pointee == nlmsghdr {
    /// Whether the message is long enough to hold a fixed header `Header` after the
    /// nlmsghdr (NLMSG_HDRLEN is a macro Swift does not import; 16 bytes, aligned).
    func hasPayload<Header>(of _: Header.Type) -> Bool {
        Int(pointee.nlmsg_len) >= MemoryLayout<nlmsghdr>.size + MemoryLayout<Header>.size
    }

    /// The fixed header after the nlmsghdr (NLMSG_DATA); check `hasPayload` first.
    func payload<Header>(as _: Header.Type) -> Header {
        UnsafeRawPointer(pathd_nlmsg_data(self)).loadUnaligned(as: Header.self)
    }
}
