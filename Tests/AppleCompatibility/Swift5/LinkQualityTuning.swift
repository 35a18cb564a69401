// SPDX-License-Identifier: Apache-2.0
// Pattern: newer SDKs' `NWPath.LinkQuality`, behind the compiler and availability checks
// that SDKs put around it, mapped to an app's own initial buffer size.
import Network

enum InitialBufferSize: Int, Sendable {
    case small = 16
    case medium = 64
    case large = 256
}

func initialBufferSize(for path: NWPath) -> InitialBufferSize {
    #if compiler(>=6.2)
    if #available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
        return InitialBufferSize(path.linkQuality)
    }
    #endif
    return .medium
}

#if compiler(>=6.2)
extension InitialBufferSize {
    @available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    init(_ quality: NWPath.LinkQuality) {
        switch quality {
        case .minimal: self = .small
        case .moderate, .unknown: self = .medium
        case .good: self = .large
        @unknown default: self = .medium
        }
    }
}
#endif
