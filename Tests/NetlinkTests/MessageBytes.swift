// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// rtnetlink messages built byte by byte, in host order as the kernel writes them, for
/// running the route filter over without a kernel.
enum MessageBytes {
    /// A message: nlmsghdr, the fixed header `body`, then attributes (type, payload),
    /// each padded to 4 bytes. nlmsg_len is the total unless `length` overrides it.
    static func message(type: Int, body: [UInt8], attributes: [(UInt16, [UInt8])] = [], length: Int? = nil) -> [UInt8] {
        var payload = body
        payload += [UInt8](repeating: 0, count: padding(payload.count))
        for (kind, value) in attributes {
            payload += host(UInt16(4 + value.count)) + host(kind) + value
            payload += [UInt8](repeating: 0, count: padding(value.count))
        }
        let total = MemoryLayout<nlmsghdr>.size + payload.count
        return host(UInt32(length ?? total)) + host(UInt16(type)) + host(UInt16(0)) + host(UInt32(1)) + host(UInt32(0))
            + payload
    }

    /// An RTM_NEWROUTE (or `type`) for `destination`/`prefixLength`: RTA_TABLE, then
    /// RTA_DST (absent for a zero-length prefix, as the kernel does), then RTA_OIF,
    /// unless `attributes` lays them out otherwise.
    static func route(_ destination: IPAddress, _ prefixLength: UInt8, sourceLength: UInt8 = 0,
                      type: Int = RTM_NEWROUTE, attributes: [(UInt16, [UInt8])]? = nil) -> [UInt8] {
        var header = rtmsg()
        header.rtm_family = destination.family.linuxValue
        header.rtm_dst_len = prefixLength
        header.rtm_src_len = sourceLength
        header.rtm_table = UInt8(RT_TABLE_MAIN.rawValue)
        header.rtm_type = UInt8(RTN_UNICAST)
        let standard: [(UInt16, [UInt8])] = [(table, host(UInt32(RT_TABLE_MAIN.rawValue)))]
            + (prefixLength > 0 ? [(destinationType, destination.bytes)] : [])
            + [(UInt16(RTA_OIF.rawValue), host(UInt32(2)))]
        return message(type: type, body: bytes(of: header), attributes: attributes ?? standard)
    }

    static let table = UInt16(RTA_TABLE.rawValue)
    static let destinationType = UInt16(RTA_DST.rawValue)
    static let priority = UInt16(RTA_PRIORITY.rawValue)

    static func bytes<Value: BitwiseCopyable>(of value: Value) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    static func host<Value: FixedWidthInteger & BitwiseCopyable>(_ value: Value) -> [UInt8] {
        bytes(of: value)
    }

    private static func padding(_ count: Int) -> Int {
        (4 - count % 4) % 4
    }
}
