// SPDX-License-Identifier: Apache-2.0
import PathTestFixtures

extension HostileClient {
    /// The script in namespace A of `topology`, on its daemon's socket unless `socketPath`
    /// names another; its stderr in the topology's directory (`openDirectoryToOthers` first).
    convenience init(_ topology: VethTopology, socketPath: String? = nil, mode: String, _ arguments: [String] = [],
                     deadline: Duration = .seconds(60)) throws {
        try self.init(socketPath: socketPath ?? topology.socketPath, mode: mode, arguments,
                      directory: topology.directory.url.path, namespace: topology.a, deadline: deadline)
    }
}
