// SPDX-License-Identifier: Apache-2.0
/// An error the daemon reports and exits on, with a message for a person.
public struct DaemonError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
