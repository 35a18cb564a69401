// SPDX-License-Identifier: Apache-2.0
import PathSocketClient
import PathProtocol

/// `pathctl -V`: pathctl's version, then the version of the pathd it reaches (from its
/// `hello`, within `answerDeadline`), each with its protocol version. An
/// unreachable or silent pathd is reported, not an error: the client's version is still
/// the answer.
enum VersionVerb {
    static func run(socketPath explicit: String?) -> PathctlExitStatus {
        writeOut("pathctl \(DaemonVersion.current) (protocol \(ProtocolVersion.current))\n")
        do throws(CommandError) {
            let connection = try connectForAnswers(explicit)
            if let hello = connection.hello {
                writeOut("pathd \(PeerText.oneLine(hello.daemonVersion)) (protocol \(hello.protocolVersion)) "
                    + "at \(connection.socketPath)\n")
            }
        } catch {
            writeOut("pathd: not reachable: \(PeerText.oneLine(error.message))\n")
        }
        return .success
    }
}
