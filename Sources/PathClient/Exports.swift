// SPDX-License-Identifier: Apache-2.0
// One import is enough: `import PathClient` brings the types its public API uses, and
// no more. PathModel, PathConfiguration and PathProtocol hold names as common as
// `Request` and `Configuration`, which would clash with an app's other imports, so only these are
// re-exported.
// Dispatch too, as Apple's Network module makes it visible: code that imports only
// Network calls `monitor.start(queue: DispatchQueue(label: …))`.
@_exported import Dispatch
@_exported import struct PathModel.Connectivity
@_exported import struct PathModel.ConnectivityEvidence
@_exported import enum PathModel.ConnectivityState
@_exported import struct PathModel.Criteria
@_exported import struct PathModel.Generation
@_exported import struct PathModel.Interface
@_exported import struct PathModel.InterfaceIndex
@_exported import enum PathModel.InterfaceType
@_exported import struct PathModel.Path
@_exported import enum PathModel.PathStatus
@_exported import struct PathModel.UTCTime
@_exported import enum PathModel.UnsatisfiedReason
@_exported import PathSocketClient
