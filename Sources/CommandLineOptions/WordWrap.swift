// SPDX-License-Identifier: Apache-2.0
/// `text`'s words in lines of at most `width` columns (a longer word gets a line of its
/// own): for help texts and the example configuration's comments.
public func wordWrapped(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
        if !line.isEmpty && line.count + 1 + word.count > width {
            lines.append(line)
            line = ""
        }
        line += (line.isEmpty ? "" : " ") + word
    }
    return lines + [line]
}
