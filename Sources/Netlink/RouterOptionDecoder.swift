// SPDX-License-Identifier: Apache-2.0
import CLinux
import PathModel

/// RTM_NEWNDUSEROPT: an option of a router advertisement that the kernel does not act on
/// itself and passes on to the `RTNLGRP_ND_USEROPT` group (`ndisc_ra_useropt`,
/// net/ipv6/ndisc.c): one message per option, the option's bytes after a
/// `struct nduseroptmsg`, then the router's address (NDUSEROPT_SRCADDR). The kernel sends
/// them only while it accepts router advertisements on the link (`accept_ra`), and keeps
/// none: there is no dump, an option is seen again with the router's next advertisement.
/// pathd reads the two that hint at the network: the DNS search list and the captive
/// portal.
enum RouterOptionDecoder {
    /// ICMPv6 router advertisement (RFC 4861).
    static let routerAdvertisement: UInt8 = 134

    /// The option a message carries, read at `receivedAt`; nil for anything else, or an
    /// option pathd does not read or finds malformed.
    static func decode(_ header: UnsafeMutablePointer<nlmsghdr>, receivedAt: MonotonicInstant) -> RouterOption? {
        guard Int(header.pointee.nlmsg_type) == RTM_NEWNDUSEROPT, header.hasPayload(of: nduseroptmsg.self) else {
            return nil
        }
        let message = header.payload(as: nduseroptmsg.self)
        let fixed = MemoryLayout<nduseroptmsg>.size
        let optionsLength = Int(message.nduseropt_opts_len)
        guard message.nduseropt_family == AddressFamily.ipv6.linuxValue,
              message.nduseropt_icmp_type == routerAdvertisement, message.nduseropt_ifindex > 0,
              Int(header.pointee.nlmsg_len) >= MemoryLayout<nlmsghdr>.size + fixed + optionsLength else { return nil }
        let start = UnsafeRawPointer(pathd_nlmsg_data(header)) + fixed
        let option = Array(UnsafeRawBufferPointer(start: start, count: optionsLength))
        guard let content = content(ofOption: option) else { return nil }
        let router = Attributes.parse(header, headerSize: fixed + optionsLength, maxType: __NDUSEROPT_MAX - 1) {
            $0.ipAddress(NDUSEROPT_SRCADDR)
        } ?? nil
        guard let router, router.family == .ipv6 else { return nil }
        return RouterOption(interface: InterfaceIndex(rawValue: message.nduseropt_ifindex), router: router,
                            receivedAt: receivedAt, content: content)
    }

    /// What one option says (its type, its length in units of 8 bytes, its body), for
    /// the two types pathd reads; nil for other types and malformed options.
    static func content(ofOption option: [UInt8]) -> RouterOption.Content? {
        guard option.count >= 8, option.count % 8 == 0, Int(option[1]) * 8 == option.count else { return nil }
        switch option[0] {
        case 31: return dnsSearchList(option)
        case 37: return captivePortal(option)
        default: return nil
        }
    }

    /// DNSSL (RFC 8106 §5.2): two reserved bytes, a lifetime in seconds (all ones:
    /// infinity), then domain names in DNS's label form, the rest padded with zeros.
    /// Names that are not host names (`DomainName`) are left out; an option with none
    /// left withdraws nothing and adds nothing, unless its lifetime is zero.
    private static func dnsSearchList(_ option: [UInt8]) -> RouterOption.Content? {
        guard option.count >= 16 else { return nil }
        let seconds = option[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let lifetime: Duration? = seconds == UInt32.max ? nil : .seconds(Int64(seconds))
        var names: [String] = []
        var position = 8
        var labels: [String] = []
        while position < option.count {
            let length = Int(option[position])
            position += 1
            if length == 0 {
                // The end of a name, or (before any label) the padding after the last one.
                if labels.isEmpty { break }
                if let name = DomainName.canonical(labels.joined(separator: ".")), !names.contains(name) {
                    names.append(name)
                }
                labels = []
                continue
            }
            guard length <= 63, position + length <= option.count else { return nil }
            labels.append(String(decoding: option[position..<(position + length)], as: UTF8.self))
            position += length
        }
        guard labels.isEmpty, !names.isEmpty else { return nil }
        return .dnsSearchList(Array(names.prefix(NetworkHints.maximumDomains)), lifetime: lifetime)
    }

    /// The captive portal's URI (RFC 8910 §2.3): the bytes after type and length,
    /// padded with NULs to the option's length.
    private static func captivePortal(_ option: [UInt8]) -> RouterOption.Content? {
        let text = String(decoding: option[2...].prefix { $0 != 0 }, as: UTF8.self)
        switch CaptivePortalURI.read(text) {
        case .portal(let uri): return .captivePortal(uri)
        case .none: return .captivePortal(nil)
        case .refused: return nil
        }
    }
}
