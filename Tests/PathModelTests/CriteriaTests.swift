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
