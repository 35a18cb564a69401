import Foundation

/// Whether this machine lets the tests create network namespaces, probed once by trying it.
struct NamespaceSupport: Sendable {
    let isAvailable: Bool
    /// Why namespaces cannot be created (empty when they can).
    let reason: String

    static func probe() -> NamespaceSupport {
        do {
            let namespace = try NetworkNamespace()
            try namespace.remove()
            return NamespaceSupport(isAvailable: true, reason: "")
        } catch {
            let user = getuid() == 0 ? "root" : "uid \(getuid())"
            return NamespaceSupport(isAvailable: false, reason: "`ip netns add` failed as \(user): \(error)")
        }
    }
}

/// Probed on first use, when Swift Testing evaluates the kernel suites' `.enabled(if:)` trait.
let namespaceSupport = NamespaceSupport.probe()
