// SPDX-License-Identifier: Apache-2.0
/// The directory (`.` for a bare name, `/` for a name in the root) and the last
/// component of a file path, as dirname(1) and basename(1) would say for a path with
/// no trailing slash.
public func splitPath(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
}
