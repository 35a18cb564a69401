// SPDX-License-Identifier: Apache-2.0
import PathModel
import SystemCalls

extension NetworkKey {
    /// The key whose base is the 128-bit ID in the file at `path` (`baseID`); why not,
    /// in words, when the file cannot be read or holds no such ID.
    public static func read(from path: String) -> Result<NetworkKey, NetworkKeyError> {
        switch RegularFile.readText(path, maximumBytes: 4096) {
        case .failure(let problem):
            return .failure(NetworkKeyError(description: "cannot read the network key: \(problem)"))
        case .success(let text):
            guard let base = baseID(text), let key = NetworkKey(base: base) else {
                return .failure(NetworkKeyError(description: "does not hold a 128-bit ID (32 hexadecimal digits, "
                    + "not all zero) to derive the network key from"))
            }
            return .success(key)
        }
    }
}

/// Why a network key could not be read, in words.
public struct NetworkKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
}

extension Configuration {
    /// This configuration with its policy's network key read from `NetworkKeyFile=`, or
    /// from the machine ID without one; what pathd (at start, on reload, for
    /// `--check-config`) and the client's in-process engine evaluate with, so that both
    /// compute the same IDs. A file `NetworkKeyFile=` names that cannot be used is an
    /// error (the IDs would silently be other ones); a machine ID missing is a warning,
    /// and no network is identified.
    public func readingNetworkKey() -> (configuration: Configuration, diagnostic: ConfigurationDiagnostic?) {
        var configuration = self
        let path = daemon.networkKeyFilePath ?? NetworkKey.machineIDPath
        switch NetworkKey.read(from: path) {
        case .success(let key):
            configuration.policy.networkKey = key
            return (configuration, nil)
        case .failure(let why):
            configuration.policy.networkKey = nil
            let named = daemon.networkKeyFilePath != nil
            return (configuration, ConfigurationDiagnostic(named ? .error : .warning, file: path, line: 0,
                                                           "\(why)" + (named ? "" : "; no network is identified")))
        }
    }
}
