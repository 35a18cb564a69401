// SPDX-License-Identifier: Apache-2.0
/// `words` as a person lists them: "a", "a and b", "a, b and c" (nothing for none): for
/// messages that name what is missing or what is allowed.
public func listedInWords(_ words: [String]) -> String {
    guard let last = words.last, words.count > 1 else { return words.first ?? "" }
    return words.dropLast().joined(separator: ", ") + " and " + last
}
