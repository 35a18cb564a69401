// SPDX-License-Identifier: Apache-2.0
// The module an app written for Apple's Network framework imports, unchanged: its
// `import Network`, and the names it qualifies with the module (`Network.NWPath`,
// `Network.NWPathMonitor`, `Network.NWInterface.InterfaceType`), find the compatibility
// types PathClient declares. Only Apple's names are exported, as Apple's module exports
// them: none of the native API's (`Path`, `PathMonitor`, `Interface`, …), so an app's
// own types of those names are not shadowed; a file that wants the native API imports
// PathClient as well. Dispatch too, which `import Network` makes visible on Apple
// platforms (`DispatchQueue(label:)` with no other import).
@_exported import Dispatch
@_exported import class PathClient.NWPathMonitor
@_exported import struct PathClient.NWPath
@_exported import struct PathClient.NWInterface
@_exported import enum PathClient.NWEndpoint
@_exported import protocol PathClient.IPAddress
@_exported import struct PathClient.IPv4Address
@_exported import struct PathClient.IPv6Address
