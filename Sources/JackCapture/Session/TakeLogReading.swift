/// What reading a take log found: every take it could read, and the lines it could not use.
///
/// A line that is not a record (invalid UTF-8, not JSON, a value out of range, a status this jcap
/// does not know) must not make the whole log unreadable: the session would refuse to record for
/// one bad line. It is skipped and reported here, once, with its line; the other lines are read.
public struct TakeLogReading: Sendable, Equatable {
    /// A line the reader could not use as it is.
    public struct SkippedLine: Sendable, Equatable, CustomStringConvertible {
        /// 1-based, as an editor numbers the log's lines.
        public var line: Int
        /// The take the line is about, when it can be told (the number it starts with).
        public var take: Int?
        /// What is wrong with it, in one line.
        public var reason: String
        /// True when only the status was left out (one this jcap does not know, in a record after
        /// the take's first): the record's other keys were read.
        public var keptOtherKeys: Bool

        public var description: String {
            "line \(line): \(reason); " + (keptOtherKeys ? "read without its status" : "the line is skipped")
        }
    }

    /// The log's path, for messages.
    public var path: String
    /// Every take read, its records merged, by take number ascending.
    public var entries: [TakeLogEntry]
    /// The lines skipped (or read in part), in file order.
    public var skipped: [SkippedLine]

    /// The takes a skipped line may belong to: recovery leaves them alone, since the line may be
    /// the take's end (a status this jcap does not know) and the take not interrupted at all.
    var takesWithSkippedLines: Set<Int> { Set(skipped.compactMap(\.take)) }

    /// The first line skipped as the error a strict reader throws.
    var firstError: TakeLogError? {
        skipped.first.map { .unreadableLog(path: path, line: $0.line, reason: $0.reason) }
    }
}
