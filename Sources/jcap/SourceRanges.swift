/// Tracks and their sources said in one line, runs of numbered names folded into ranges:
/// `Signal 1..6 <- sig:out_1..6, Pair L <- sig:out_7, Vox <- system:capture_9`.
enum SourceRanges {
    /// `names` (each with its source, if given), consecutive numbers folded; `arrow` points from
    /// name to source (` -> ` for where outputs go).
    static func text(names: [String], sources: [String]? = nil, arrow: String = " <- ") -> String {
        var runs: [(first: Int, last: Int)] = []
        for index in names.indices {
            if let run = runs.last, run.last == index - 1, follows(names[index - 1], names[index]),
               sources.map({ follows($0[index - 1], $0[index]) }) ?? true {
                runs[runs.count - 1].last = index
            } else {
                runs.append((index, index))
            }
        }
        return runs.map { run in
            var text = range(names[run.first], names[run.last], single: run.first == run.last)
            if let sources { text += arrow + range(sources[run.first], sources[run.last], single: run.first == run.last) }
            return text
        }.joined(separator: ", ")
    }

    /// `T1..T8`, or `sig:out_1..8` where the second only changes its number.
    private static func range(_ first: String, _ last: String, single: Bool) -> String {
        guard !single else { return first }
        return first + ".." + (split(first)?.stem == split(last)?.stem ? String(split(last)!.number) : last)
    }

    /// The name ends in a number one past the one before's, with the same text in front.
    private static func follows(_ earlier: String, _ later: String) -> Bool {
        guard let a = split(earlier), let b = split(later) else { return false }
        return a.stem == b.stem && b.number == a.number + 1
    }

    /// `out_12` as (`out_`, 12); nil without a number at the end.
    private static func split(_ name: String) -> (stem: Substring, number: Int)? {
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count < 10, let number = Int(String(digits.reversed())) else { return nil }
        return (name.dropLast(digits.count), number)
    }
}
