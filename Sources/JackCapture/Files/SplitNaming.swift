import Glibc

/// The names of a split take's files: each carries the local date and time it starts,
/// to the second, before the extension: `take-007.wav` becomes `take-007-20261122-143000.wav`,
/// `-o show.flac` becomes `show-20261122-143000.flac`. A file after the first starts on its
/// boundary, which is a whole second of the local clock, so its name is its boundary's time.
///
/// A name never replaces a file: when one of that name exists (the hour repeated as the clocks go
/// back, or a file put there), `-2`, `-3`, ... is added before the extension.
package enum SplitNaming {
    /// `20261122-143000`: the local date and time of a moment (microseconds since the Unix epoch),
    /// rounded down to the second.
    package static func timeStamp(microsecondsSinceEpoch micros: Int64) -> String {
        let time = LocalTime(microsecondsSinceEpoch: micros)
        let pad = LocalTime.padded
        return pad(time.year, 4) + pad(time.month, 2) + pad(time.day, 2) + "-"
            + pad(time.hour, 2) + pad(time.minute, 2) + pad(time.second, 2)
    }

    /// `path` with `-<suffix>` inserted before the extension of its last component (`dir/a.wav`,
    /// `x` → `dir/a-x.wav`); a leading dot is part of the name, not an extension.
    static func inserting(_ suffix: String, into path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let nameStart = slash.map { path.index(after: $0) } ?? path.startIndex
        if let dot = path[nameStart...].lastIndex(of: "."), dot > nameStart {
            return String(path[..<dot]) + "-" + suffix + String(path[dot...])
        }
        return path + "-" + suffix
    }

    /// The path of the file that starts at `startMicroseconds`, for a take whose unsplit file
    /// would be `path`.
    package static func segmentPath(_ path: String, startMicroseconds: Int64) -> String {
        inserting(timeStamp(microsecondsSinceEpoch: startMicroseconds), into: path)
    }

    /// `path` if no file has that name, else the first of `name-2.ext`, `name-3.ext`, ... that is
    /// free.
    package static func unusedPath(_ path: String, exists: (String) -> Bool = { access($0, F_OK) == 0 }) -> String {
        guard exists(path) else { return path }
        var number = 2
        while exists(inserting(String(number), into: path)) { number += 1 }
        return inserting(String(number), into: path)
    }
}
