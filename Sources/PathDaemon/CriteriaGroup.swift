// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// Everything published for one distinct set of criteria: the current path, its
/// sequence and its encoded line (encoded once per change, shared by every subscriber;
/// who subscribed is `SubscriptionRegistry`'s business). `PathPublisher` keeps the
/// default criteria's group and every subscribed one current at each change, and at most
/// `PathPublisher.maximumIdleGroups` others, brought up to date when asked: network IDs
/// make the distinct criteria countless.
struct CriteriaGroup {
    private(set) var path: Path
    /// The evidence of the latest check: in `line`, so in every `status` reply and every
    /// new subscription's first line, even while subscribers are sent no line for it.
    private(set) var connectivity: Connectivity
    private(set) var sequence: UInt64 = 1
    /// The generation `line` was published under.
    private(set) var generation: Generation
    private(set) var line: EncodedPathLine

    init(path: Path, connectivity: Connectivity, generation: Generation) {
        self.path = path
        self.connectivity = connectivity
        self.generation = generation
        line = EncodedPathLine(PathUpdate(generation: generation, sequence: 1, path: path, connectivity: connectivity))
    }

    /// Records a newly evaluated path and the connectivity of its first interface.
    /// Returns whether a line must be published: the path changed, the connectivity's
    /// verdict changed, or `force` (after a resync the current path is sent regardless).
    /// A check that only confirms the verdict is no news for subscribers, but it is the
    /// latest evidence: the line is encoded again with it, under the same sequence
    /// (docs/PROTOCOL.md, "Connectivity").
    mutating func update(path newPath: Path, connectivity newConnectivity: Connectivity, generation: Generation,
                         force: Bool) -> Bool {
        guard force || newPath != path || newConnectivity.verdict != connectivity.verdict else {
            if newConnectivity != connectivity {
                connectivity = newConnectivity
                line = EncodedPathLine(PathUpdate(generation: self.generation, sequence: sequence, path: path,
                                                  connectivity: newConnectivity))
            }
            return false
        }
        path = newPath
        connectivity = newConnectivity
        self.generation = generation
        sequence += 1
        line = EncodedPathLine(PathUpdate(generation: generation, sequence: sequence, path: newPath,
                                          connectivity: newConnectivity))
        return true
    }
}
