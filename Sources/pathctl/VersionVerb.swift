import PathSocketClient
import PathProtocol

/// `pathctl -V`: pathctl's version, then the version of the pathd it reaches (from its
/// `hello`), each with its protocol version. An unreachable pathd is reported, not an
/// error: the client's version is still the answer.
enum VersionVerb {
    static func run(socketPath explicit: String?) -> PathctlExitStatus {
        writeOut("pathctl \(DaemonVersion.current) (protocol \(ProtocolVersion.current))\n")
        do throws(PathClientError) {
            let connection = try PathConnection.connect(to: explicit, timeout: .seconds(5))
            if let hello = connection.hello {
                writeOut("pathd \(hello.daemonVersion) (protocol \(hello.protocolVersion)) "
                    + "at \(connection.socketPath)\n")
            }
        } catch {
            writeOut("pathd: not reachable: \(CommandError(error).message)\n")
        }
        return .success
    }
}
