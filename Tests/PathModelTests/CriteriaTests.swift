// SPDX-License-Identifier: Apache-2.0
import PathModel
import Testing

@Suite("Criteria")
struct CriteriaTests {
    @Test(arguments: InterfaceType.allCases)
    func anyAllowsEveryType(_ type: InterfaceType) {
        #expect(Criteria.any.allows(type))
        #expect(Criteria.any == Criteria())
    }

    @Test(arguments: [
        (Criteria(requiredInterfaceType: .wifi), [InterfaceType.wifi]),
        (Criteria(requiredInterfaceType: .cellular), [.cellular]),
        (Criteria(prohibitedInterfaceTypes: [.cellular]), [.wifi, .wiredEthernet, .loopback, .other]),
        (Criteria(prohibitedInterfaceTypes: [.cellular, .other]), [.wifi, .wiredEthernet, .loopback]),
        (Criteria(requiredInterfaceType: .wifi, prohibitedInterfaceTypes: [.cellular]), [.wifi]),
        (Criteria(requiredInterfaceType: .wifi, prohibitedInterfaceTypes: [.wifi]), []),
        (Criteria(prohibitedInterfaceTypes: Set(InterfaceType.allCases)), []),
    ])
    func allows(criteria: Criteria, allowed: [InterfaceType]) {
        for type in InterfaceType.allCases {
            #expect(criteria.allows(type) == allowed.contains(type), "\(type)")
        }
    }
}

@Suite("Criteria: conditions on the path")
struct CriteriaConditionTests {
    /// Only the interface criteria restrict interfaces; a condition on the path leaves
    /// every type allowed (the kernel's own route still decides, PathEvaluator).
    @Test(arguments: [
        (Criteria.any, false),
        (Criteria(prohibitExpensivePaths: true), false),
        (Criteria(prohibitConstrainedPaths: true), false),
        (Criteria(prohibitExpensivePaths: true, prohibitConstrainedPaths: true), false),
        (Criteria(requiredInterfaceType: .wifi), true),
        (Criteria(prohibitedInterfaceTypes: [.cellular], prohibitExpensivePaths: true), true),
    ])
    func restrictsInterfacesOnlyForTypes(criteria: Criteria, restricts: Bool) {
        #expect(criteria.restrictsInterfaces == restricts)
        if !restricts {
            for type in InterfaceType.allCases { #expect(criteria.allows(type), "\(type)") }
        }
    }

    @Test func conditionsMakeDistinctCriteria() {
        let all: Set<Criteria> = [.any, Criteria(prohibitExpensivePaths: true),
                                  Criteria(prohibitConstrainedPaths: true),
                                  Criteria(prohibitExpensivePaths: true, prohibitConstrainedPaths: true)]
        #expect(all.count == 4)
    }
}
