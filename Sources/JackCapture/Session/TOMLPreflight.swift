/// Finds, before the text reaches toml++, the invalid TOML that toml++ 3.4.0 (TOMLKit's) asserts
/// on instead of reporting: a debug build aborts, and a release build, where an assertion is an
/// assumption for the optimiser, has undefined behaviour. Both found by fuzzing the session file
/// reader (tools/fuzz session-file):
///
/// - a table header with no name where one must start (`[` then a line break, `[[[`, `[ =`);
///   fixed upstream in marzer/tomlplusplus#301. A header is a `[` that starts a line (after spaces
///   or tabs) outside strings, comments and values (arrays and inline tables may span lines); its
///   name must start with a bare-key character (`A-Z a-z 0-9 _ -`) or a quote, after spaces or
///   tabs and a second `[`. A `]` or the end of the text there is left to toml++, which reports both.
/// - a value that is a date followed by `T` and no time (`1979-05-27Tx`): toml++ takes it for a
///   date-time and asserts that a digit follows the `T`.
enum TOMLPreflight {
    enum Problem: Equatable {
        case namelessHeader(line: Int)
        case dateWithoutTime(line: Int)

        var line: Int {
            switch self {
            case .namelessHeader(let line), .dateWithoutTime(let line): line
            }
        }

        var message: String {
            switch self {
            case .namelessHeader: "not valid TOML: a table header needs a name after its '[' ([session], [[track]])"
            case .dateWithoutTime: "not valid TOML: a date followed by 'T' needs a time (1979-05-27T07:32:00Z)"
            }
        }
    }

    /// The first problem in the text, or nil.
    static func firstProblem(_ text: String) -> Problem? {
        let bytes = Array(text.utf8)
        enum Place { case code, comment, basic, multilineBasic, literal, multilineLiteral }
        func starts(_ pattern: String, at index: Int) -> Bool {
            let pattern = Array(pattern.utf8)
            return index + pattern.count <= bytes.count && bytes[index..<index + pattern.count].elementsEqual(pattern)
        }
        func isSpace(_ index: Int) -> Bool { index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x09) }
        func isDigit(_ index: Int) -> Bool { index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 }
        /// `YYYY-MM-DDT` at `index` followed by anything but a digit (the end is reported by toml++).
        func isDateWithoutTime(at index: Int) -> Bool {
            let dashes = [4, 7]
            for offset in 0..<10 where dashes.contains(offset) ? bytes[safe: index + offset] != UInt8(ascii: "-") : !isDigit(index + offset) {
                return false
            }
            guard let separator = bytes[safe: index + 10], separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") else { return false }
            return index + 11 < bytes.count && !isDigit(index + 11)
        }
        func namesStart(at index: Int) -> Bool {
            guard index < bytes.count else { return true }
            let byte = bytes[index]
            return (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\"")
                || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "]")
        }
        /// The end of a closing `"""` or `'''` at `index`: up to two more quotes belong to the string.
        func closingEnd(at index: Int, quote: UInt8) -> Int {
            var end = index + 3
            while end < bytes.count, end < index + 5, bytes[end] == quote { end += 1 }
            return end
        }
        let newline = UInt8(ascii: "\n")
        var place = Place.code
        var line = 1
        var atLineStart = true
        // Open brackets and braces of values: inside one a `[` at a line's start is an array.
        var depth = 0
        // The last character of code before this one (a header's brackets excluded).
        var previous: UInt8 = 0
        // toml++ reads past a UTF-8 byte order mark: the first line still starts after it.
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == newline { line += 1 }
            switch place {
            case .code:
                if byte == newline {
                    atLineStart = true
                    index += 1
                    continue
                }
                if byte == 0x20 || byte == 0x09 || byte == 0x0D {
                    index += 1
                    continue
                }
                let startsLine = atLineStart
                atLineStart = false
                // A value starts after '=', or '[' or ',' in an array.
                if isDigit(index), previous == UInt8(ascii: "=") || previous == UInt8(ascii: ",") || previous == UInt8(ascii: "["),
                   isDateWithoutTime(at: index) {
                    return .dateWithoutTime(line: line)
                }
                if byte == UInt8(ascii: "#") {
                    place = .comment
                } else if starts("\"\"\"", at: index) {
                    place = .multilineBasic
                    index += 3
                    continue
                } else if starts("'''", at: index) {
                    place = .multilineLiteral
                    index += 3
                    continue
                } else if byte == UInt8(ascii: "\"") {
                    place = .basic
                } else if byte == UInt8(ascii: "'") {
                    place = .literal
                } else if byte == UInt8(ascii: "[") && startsLine && depth == 0 {
                    var next = index + 1
                    let spaced = isSpace(next)
                    while isSpace(next) { next += 1 }
                    if !spaced, next < bytes.count, bytes[next] == UInt8(ascii: "[") {
                        next += 1
                        while isSpace(next) { next += 1 }
                    }
                    if !namesStart(at: next) { return .namelessHeader(line: line) }
                    // The header's own brackets close on its line; its name is read as code.
                    previous = 0
                    index = next
                    continue
                } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    depth += 1
                } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                    depth = max(0, depth - 1)
                }
                if place == .code { previous = byte }
            case .comment:
                if byte == newline {
                    place = .code
                    atLineStart = true
                }
            case .basic, .multilineBasic:
                if byte == UInt8(ascii: "\\") {
                    // The escaped character is the string's, a line break included.
                    if index + 1 < bytes.count, bytes[index + 1] == newline { line += 1 }
                    index += 2
                    continue
                }
                if place == .basic, byte == UInt8(ascii: "\"") || byte == newline {
                    place = .code
                    atLineStart = byte == newline
                } else if place == .multilineBasic, starts("\"\"\"", at: index) {
                    place = .code
                    index = closingEnd(at: index, quote: UInt8(ascii: "\""))
                    continue
                }
            case .literal:
                if byte == UInt8(ascii: "'") || byte == newline {
                    place = .code
                    atLineStart = byte == newline
                }
            case .multilineLiteral:
                if starts("'''", at: index) {
                    place = .code
                    index = closingEnd(at: index, quote: UInt8(ascii: "'"))
                    continue
                }
            }
            index += 1
        }
        return nil
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
