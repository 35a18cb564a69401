// SPDX-License-Identifier: Apache-2.0
import PathModel
import SystemCalls

/// A host name's addresses as pathd's `[Watch]` hosts and pathctl's `--route` HOSTs both
/// resolve them, and why there are none, in the words both say.
extension HostResolver {
    /// Every address of `name` (`addresses(of:)`), or why the resolver gave none.
    public static func ipAddresses(of name: String) -> Result<[IPAddress], Failure> {
        Result { () throws(Failure) in try addresses(of: name).compactMap { IPAddress(bytes: $0) } }
    }

    /// Why `addresses` holds no address, for a person; nil when it holds some.
    public static func unresolvedReason(_ addresses: Result<[IPAddress], Failure>) -> String? {
        switch addresses {
        case .failure(let failure): "cannot resolve: \(failure)"
        case .success(let list) where list.isEmpty: "the resolver returned no address"
        case .success: nil
        }
    }
}
