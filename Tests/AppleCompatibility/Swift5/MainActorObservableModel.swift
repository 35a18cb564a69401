// SPDX-License-Identifier: Apache-2.0
// Pattern: a main-actor @Observable model written for Swift 6: the handler hops onto
// the main actor with a Task, the model is never touched off it.
import Foundation
import Observation
import Network

@MainActor
@Observable
final class ConnectionStatusModel {
    private(set) var status: NWPath.Status = .requiresConnection
    private(set) var isExpensive = false
    private(set) var isConstrained = false
    private(set) var interfaceTypes: [NWInterface.InterfaceType] = []

    @ObservationIgnored
    private let monitor = NWPathMonitor()

    init() {
        monitor.pathUpdateHandler = { [weak self] path in
            Task { @MainActor in
                self?.apply(path)
            }
        }
        monitor.start(queue: .global(qos: .utility))
    }

    func stop() {
        monitor.cancel()
    }

    private func apply(_ path: NWPath) {
        status = path.status
        isExpensive = path.isExpensive
        isConstrained = path.isConstrained
        interfaceTypes = path.availableInterfaces.map(\.type)
    }

    var isConnected: Bool { status == .satisfied }
}
