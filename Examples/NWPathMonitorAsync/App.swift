// SPDX-License-Identifier: Apache-2.0
import Network
import Foundation
@main struct App {
    static func main() async {
        let monitor = NWPathMonitor(prohibitedInterfaceTypes: [.cellular, .loopback])
        for await path in monitor {
            print(path.status == .satisfied ? "online" : "offline",
                  path.availableInterfaces.first?.type == .wiredEthernet)
            break
        }
        monitor.cancel()
    }
}
