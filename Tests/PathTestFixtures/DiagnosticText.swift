// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A file's text for a failure message (a child's stderr, a valgrind log): its contents,
/// or why it could not be read, so the message says so instead of hiding it.
public func diagnosticText(ofFile path: String) -> String {
    do {
        return try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        return "(cannot read \(path): \(error.localizedDescription))"
    }
}
