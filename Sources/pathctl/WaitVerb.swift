import Glibc
import PathSocketClient
import PathModel
import PathProtocol

/// `pathctl wait`: block until the path is satisfied (under the criteria), like
/// nm-online or systemd-networkd-wait-online, but following policy routing and VPNs as
/// traffic would. Exit 0 once satisfied, 1 on timeout or when pathd is unreachable.
enum WaitVerb {
    static let verb = Verb(name: "wait", summary: "wait until the path is satisfied",
                           takesCriteria: true, takesTimeout: true, run: run)

    static func run(_ options: GlobalOptions) throws(CommandError) -> Int32 {
        let deadline = options.timeout.map { ContinuousClock.now + $0 }
        do throws(PathClientError) {
            let connection = try PathConnection.connect(to: options.socketPath, timeout: options.timeout)
            try connection.send(Request(op: .subscribe, criteria: options.criteria))
            while true {
                // Each read may wait only for what is left of the whole timeout.
                if let deadline {
                    let left = deadline - ContinuousClock.now
                    if left <= .zero { return timedOut(options) }
                    try connection.setTimeout(left)
                }
                let (message, line): (ServerMessage, [UInt8])
                do {
                    (message, line) = try connection.nextWithLine()
                } catch where error.isTimeout {
                    return timedOut(options)
                }
                switch message {
                case .path(let update, _) where update.path.status == .satisfied:
                    if options.json { echo(line) }
                    return 0
                case .error(let code, let text, _):
                    throw .refused(code, text)
                case .path, .hello, .resync, .pong, .unsubscribed, .interfaces, .reloaded:
                    continue
                }
            }
        } catch {
            throw CommandError.failure(error.description)
        }
    }

    private static func timedOut(_ options: GlobalOptions) -> Int32 {
        let (whole, fraction) = options.timeout?.components ?? (0, 0)
        let seconds = Double(whole) + Double(fraction) / 1e18
        writeError("pathctl: timed out after \(seconds) s waiting for a satisfied path\n")
        return 1
    }
}
