extension Array where Element == String {
    /// The items as a list in a sentence, `conjunction` before the last: "a, b or c", "a and b",
    /// "a". Every message that lists choices says it this one way.
    package func joinedAsPhrase(_ conjunction: String = "or") -> String {
        guard count > 1, let last else { return first ?? "" }
        return dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}
