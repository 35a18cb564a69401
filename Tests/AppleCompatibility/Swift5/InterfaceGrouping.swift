// SPDX-License-Identifier: Apache-2.0
// Pattern: NWInterface and its type as Hashable values: sets, dictionary keys,
// grouping, sorting by index.
import Network

func interfacesByType(_ path: NWPath) -> [NWInterface.InterfaceType: [NWInterface]] {
    Dictionary(grouping: path.availableInterfaces, by: \.type)
}

func interfaceTypes(_ path: NWPath) -> Set<NWInterface.InterfaceType> {
    Set(path.availableInterfaces.map(\.type))
}

func interfacesSortedByIndex(_ path: NWPath) -> [NWInterface] {
    path.availableInterfaces.sorted { $0.index < $1.index }
}

func newInterfaces(old: NWPath, new: NWPath) -> Set<NWInterface> {
    Set(new.availableInterfaces).subtracting(old.availableInterfaces)
}

func interfaceNamesByIndex(_ path: NWPath) -> [Int: String] {
    Dictionary(uniqueKeysWithValues: path.availableInterfaces.map { ($0.index, $0.name) })
}

func primaryInterface(_ path: NWPath) -> NWInterface? {
    path.availableInterfaces.first { path.usesInterfaceType($0.type) }
}
