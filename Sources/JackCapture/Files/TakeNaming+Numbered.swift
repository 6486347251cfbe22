extension TakeNaming {
    /// The next of a series of files named after `path` (`mix.wav`, when each roll of the transport is a
    /// take): `mix-001.wav`, `mix-002.wav`, ... one past the highest number already in
    /// `existing` (the names in the path's folder), so no file is ever reused.
    package static func nextNumberedPath(after path: String, existing names: [String]) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let suffix = dot.map { String(name[$0...]) } ?? ""
        let highest = names.compactMap { existing -> Int? in
            guard existing.hasPrefix(stem + "-"), existing.hasSuffix(suffix),
                  existing.count > stem.count + 1 + suffix.count else { return nil }
            let digits = existing.dropFirst(stem.count + 1).dropLast(suffix.count)
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(digits)
        }.max() ?? 0
        let digits = String(highest + 1)
        return folder + stem + "-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + suffix
    }
}
