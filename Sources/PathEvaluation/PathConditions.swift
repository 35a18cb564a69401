// SPDX-License-Identifier: Apache-2.0
import PathSettings
import PathModel

/// What traffic over a path costs, which interface says so, and which rule decided
/// (`CostSource`): the first of the path's interfaces (a tunnel's underlay after its
/// tunnel) that is expensive, and constrained; on a path that is not, the first
/// interface's rule. The interface is what a condition's reason names ("the path via
/// wwan0 is expensive").
struct Cost: Equatable {
    var expensiveBy: String?
    var constrainedBy: String?
    var isExpensiveSetBy: CostSource?
    var isConstrainedSetBy: CostSource?

    init(expensiveBy: String? = nil, constrainedBy: String? = nil, isExpensiveSetBy: CostSource? = nil,
         isConstrainedSetBy: CostSource? = nil) {
        self.expensiveBy = expensiveBy
        self.constrainedBy = constrainedBy
        self.isExpensiveSetBy = isExpensiveSetBy
        self.isConstrainedSetBy = isConstrainedSetBy
    }

    /// One link's own cost (`NetworkIdentifier`'s, by precedence).
    init(of link: Link, _ cost: LinkCost) {
        self.init(expensiveBy: cost.isExpensive ? link.name : nil, constrainedBy: cost.isConstrained ? link.name : nil,
                  isExpensiveSetBy: cost.isExpensiveSetBy, isConstrainedSetBy: cost.isConstrainedSetBy)
    }

    var isExpensive: Bool { expensiveBy != nil }
    var isConstrained: Bool { constrainedBy != nil }

    /// Both costs; the first interface found keeps the blame, and its rule.
    func adding(_ other: Cost) -> Cost {
        Cost(expensiveBy: expensiveBy ?? other.expensiveBy, constrainedBy: constrainedBy ?? other.constrainedBy,
             isExpensiveSetBy: Self.decider((expensiveBy, isExpensiveSetBy),
                                            (other.expensiveBy, other.isExpensiveSetBy)),
             isConstrainedSetBy: Self.decider((constrainedBy, isConstrainedSetBy),
                                              (other.constrainedBy, other.isConstrainedSetBy)))
    }

    /// The rule that decided one flag of two costs: that of the first with an interface
    /// to blame, else the first rule known.
    private static func decider(_ first: (blamed: String?, setBy: CostSource?),
                                _ second: (blamed: String?, setBy: CostSource?)) -> CostSource? {
        if first.blamed != nil { return first.setBy }
        if second.blamed != nil { return second.setBy }
        return first.setBy ?? second.setBy
    }
}

extension Path {
    /// The criteria's conditions on the path itself, judged on the path the evaluator
    /// chose (satisfied, or requiring a connection): the first condition it fails makes
    /// it unsatisfied, with that condition's reason and the interface to blame, and it
    /// keeps `isExpensive` and `isConstrained` and what set them (the facts the reason is about) but no
    /// interface, gateway or family: it carries none of the subscriber's traffic. A path
    /// already unsatisfied keeps its own reason, which says more. Pure, and reached only
    /// through `PathEvaluator.evaluate`, so the daemon and the in-process engine agree.
    ///
    /// In order: not expensive (`prohibitExpensivePaths`), not constrained
    /// (`prohibitConstrainedPaths`), on the required network and on none prohibited
    /// (`Criteria.admitsNetwork`: the network of the path's first interface, only once
    /// identified). A new condition on the path is one more line in `unmetCondition`,
    /// with a reason of its own in `UnsatisfiedReason`.
    func meeting(_ criteria: Criteria, cost: Cost) -> Path {
        guard status != .unsatisfied, let unmet = unmetCondition(of: criteria, cost: cost) else { return self }
        return Path(status: .unsatisfied, unsatisfiedReason: unmet.reason, reasonInterface: unmet.interface,
                    isExpensive: isExpensive, isConstrained: isConstrained,
                    isExpensiveSetBy: isExpensiveSetBy, isConstrainedSetBy: isConstrainedSetBy)
    }

    /// The first condition of `criteria` this path fails, and the interface to blame.
    private func unmetCondition(of criteria: Criteria, cost: Cost) -> (reason: UnsatisfiedReason, interface: String?)? {
        if criteria.prohibitExpensivePaths, isExpensive { return (.expensiveExcluded, cost.expensiveBy) }
        if criteria.prohibitConstrainedPaths, isConstrained { return (.constrainedExcluded, cost.constrainedBy) }
        // Asked only when set: the network is a copy of the first interface's.
        if criteria.restrictsNetworks, !criteria.admitsNetwork(network) {
            return (.networkExcluded, availableInterfaces.first?.name)
        }
        return nil
    }
}
