/// Names for takes recorded without `-o`: `take-001.wav`, `take-002.wav`, ... in a folder. A number
/// is never reused, even when an earlier take was deleted, so names keep recording order.
package enum TakeNaming {
    package static let prefix = "take-"
    /// The highest number a take is named with (as a session's, `SessionTake.highestNumber`): a
    /// folder with a `take-NNN` name at or above it has no number left for a new take.
    package static let highestNumber = 999_999

    /// The take number in a file name, or nil if it is not a take's: `take-012.flac` (one
    /// interleaved file) and `take-007-Kick In.wav` (one file per track, the track's label after
    /// the number) are both take files. The digits must end the name or be followed by `.` or `-`,
    /// so `take-12b.wav` is not a take: a name the user chose is never mistaken for one, and a
    /// session's per-track files count towards the numbering as much as interleaved ones do.
    package static func takeNumber(of fileName: String) -> Int? {
        guard fileName.hasPrefix(prefix) else { return nil }
        let rest = fileName.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { return nil }
        let after = rest.dropFirst(digits.count).first
        guard after == nil || after == "." || after == "-" else { return nil }
        return Int(digits)
    }

    /// The file name for take `number`.
    package static func fileName(number: Int, fileExtension: String) -> String {
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        return "\(prefix)\(padded).\(fileExtension)"
    }

    /// The next take's file name, given the names already in the folder: one past the highest
    /// take number there, whatever its extension; nil when that would be above `highestNumber`
    /// (checked before adding: a name can hold any number, Int.max too).
    package static func nextFileName(existing names: [String], fileExtension: String) -> String? {
        let highest = names.compactMap(takeNumber(of:)).max() ?? 0
        guard highest < highestNumber else { return nil }
        return fileName(number: highest + 1, fileExtension: fileExtension)
    }

    /// The names in a folder (opendir/readdir).
    package static func fileNames(inDirectory directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            names.append(name)
        }
        return names
    }
}
