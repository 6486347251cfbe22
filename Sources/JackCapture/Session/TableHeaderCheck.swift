/// Finds a table header with no name where one must start (`[` then a line break, `[[[`, `[ =`),
/// before the text reaches toml++.
///
/// Why: toml++ 3.4.0 (TOMLKit's) asserts that a header's name starts with a key character
/// instead of reporting it (fixed upstream in marzer/tomlplusplus#301): a debug build aborts and a
/// release build, where the assertion is an assumption for the optimiser, has undefined behaviour.
/// Found by fuzzing the session file reader (tools/fuzz session-file).
///
/// A header is a `[` that starts a line (after spaces or tabs) outside strings, comments and
/// values (arrays and inline tables may span lines); its name must start with a bare-key
/// character (`A-Z a-z 0-9 _ -`) or a quote, after spaces or tabs and a second `[`. A `]` or the
/// end of the text there is left to toml++, which reports both.
enum TableHeaderCheck {
    /// The 1-based line of the first header whose name starts with anything else, or nil.
    static func lineOfNamelessHeader(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        enum Place { case code, comment, basic, multilineBasic, literal, multilineLiteral }
        func starts(_ pattern: String, at index: Int) -> Bool {
            let pattern = Array(pattern.utf8)
            return index + pattern.count <= bytes.count && bytes[index..<index + pattern.count].elementsEqual(pattern)
        }
        func isSpace(_ index: Int) -> Bool { index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x09) }
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
                    if !namesStart(at: next) { return line }
                    // The header's own brackets close on its line; its name is read as code.
                    index = next
                    continue
                } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    depth += 1
                } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                    depth = max(0, depth - 1)
                }
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
