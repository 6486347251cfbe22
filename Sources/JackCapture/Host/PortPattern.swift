/// JACK port names matched against shell-style globs (fnmatch(3)).
package enum PortPattern {
    /// Whether `pattern` has glob characters; without them it names one port exactly.
    package static func isGlob(_ pattern: String) -> Bool {
        pattern.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    /// The names `pattern` matches, in natural order (`out_2` before `out_10`).
    package static func matches(_ pattern: String, in names: [String]) -> [String] {
        guard isGlob(pattern) else { return names.contains(pattern) ? [pattern] : [] }
        return names.filter { fnmatch(pattern, $0, 0) == 0 }.sorted(by: NaturalOrder.areInIncreasingOrder)
    }
}
