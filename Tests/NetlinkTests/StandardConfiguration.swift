// SPDX-License-Identifier: Apache-2.0
import Netlink
import PathConfiguration

extension NetlinkConfiguration {
    /// As pathd asks without a pathd.conf: the standard lookups, `ReceiveBuffer=`'s default.
    static let standard = NetlinkConfiguration(receiveBufferBytes: DaemonSettings.defaults.receiveBufferBytes)
}
