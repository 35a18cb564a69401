import PathModel
import PathProtocol

/// Everything published for one distinct set of criteria: the current path, its
/// sequence and its encoded line (encoded once per change, shared by every subscriber;
/// who subscribed is `SubscriptionRegistry`'s business). Groups are never removed: there are at most a few hundred
/// distinct criteria (one required type × a set of prohibited types), so the map is
/// bounded and sequences stay monotonic for as long as the daemon runs.
struct CriteriaGroup {
    let criteria: Criteria
    private(set) var path: Path
    private(set) var sequence: UInt64 = 1
    private(set) var line: EncodedPathLine

    init(criteria: Criteria, path: Path, generation: Generation) {
        self.criteria = criteria
        self.path = path
        line = EncodedPathLine(PathUpdate(generation: generation, sequence: 1, path: path))
    }

    /// Records a newly evaluated path. Returns whether a line must be published: the
    /// path changed, or `force` (after a resync the current path is sent regardless).
    mutating func update(path newPath: Path, generation: Generation, force: Bool) -> Bool {
        guard force || newPath != path else { return false }
        path = newPath
        sequence += 1
        line = EncodedPathLine(PathUpdate(generation: generation, sequence: sequence, path: newPath))
        return true
    }
}
