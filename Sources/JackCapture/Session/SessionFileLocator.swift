/// The lines of a session file's tables and keys. TOMLKit (toml++) hands back values without
/// their positions, and every refusal must name its line, so the text is read a second time
/// here, once TOMLKit has accepted it: table headers (`[session]`, each `[[track]]`), key lines
/// (`name = ...`, quoted and dotted keys), and values skipped whole (basic, literal and multi-line
/// strings, arrays and inline tables spanning lines, comments), so nothing inside a value is
/// taken for a header or a key. Only the first line of each key in each table is kept: the one
/// an engineer looks for first.
///
/// Tables nested below the top level are not told apart: their keys are never checked one by
/// one, since the top-level key that holds them is already unknown or of the wrong type. On text
/// TOMLKit refuses the locator still finishes, with whatever it found.
struct SessionFileLocator: Sendable, Equatable {
    /// A table whose keys the locator keeps.
    enum Table: Hashable, Sendable {
        /// The document's root: keys before the first header, and each header's first name.
        case root
        /// A top-level `[name]` table.
        case table(String)
        /// The `index`-th (0-based) `[[name]]` table.
        case element(String, Int)
    }

    private var keyLines: [Table: [String: Int]] = [:]
    private var headerLines: [Table: Int] = [:]
    /// How many `[[name]]` headers each array of tables has had so far.
    private var elementCounts: [String: Int] = [:]

    init(text: String) {
        var scanner = Scanner(text)
        // nil while inside a table nested deeper than the top level.
        var current: Table? = .root
        while true {
            scanner.skipBlankLinesAndComments()
            guard let first = scanner.peek() else { break }
            let line = scanner.line
            if first == "[" {
                scanner.advance()
                let isArrayOfTables = scanner.peek() == "["
                if isArrayOfTables { scanner.advance() }
                let path = scanner.readKeyPath()
                scanner.skipRestOfLine()
                current = enterHeader(path, isArrayOfTables: isArrayOfTables, line: line)
            } else {
                let path = scanner.readKeyPath()
                scanner.skipInlineSpace()
                guard !path.isEmpty, scanner.peek() == "=" else {
                    scanner.skipRestOfLine()
                    continue
                }
                scanner.advance()
                if let current { recordKeyPath(path, in: current, line: line) }
                scanner.skipValue()
            }
        }
    }

    /// The first line of `key` in `table`, or nil when the text has no line for it (the table is
    /// written inline, or the key is absent).
    func line(ofKey key: String, in table: Table) -> Int? {
        keyLines[table]?[key]
    }

    /// The line of a table's header (`[session]`, the n-th `[[track]]`); for a table written as a
    /// value (`session = { ... }`, `track = [ { ... } ]`) or with dotted keys, the line of its name.
    /// nil for an element past the last `[[name]]` header.
    func line(of table: Table) -> Int? {
        if let header = headerLines[table] { return header }
        switch table {
        case .root: return nil
        case .table(let name): return keyLines[.root]?[name]
        case .element(let name, _): return elementCounts[name] == nil ? keyLines[.root]?[name] : nil
        }
    }

    /// Keys of `table` the locator found, with their first lines.
    func keys(in table: Table) -> [String: Int] {
        keyLines[table] ?? [:]
    }

    /// Enters the table a header names; returns it when its keys are kept.
    private mutating func enterHeader(_ path: [String], isArrayOfTables: Bool, line: Int) -> Table? {
        guard let name = path.first else { return nil }
        record(name, in: .root, line: line)
        guard path.count == 1 else {
            // `[session.extra]` or `[[track.extra]]`: the second name is a key of the top-level
            // table (or of its latest element), found on this line.
            record(path[1], in: container(named: name), line: line)
            return nil
        }
        let table: Table
        if isArrayOfTables {
            let index = elementCounts[name, default: 0]
            elementCounts[name] = index + 1
            table = .element(name, index)
        } else {
            table = .table(name)
        }
        if headerLines[table] == nil { headerLines[table] = line }
        return table
    }

    /// `a.b.c = value` in `table` records `a`; at the root it also records `b` in table `a`, so
    /// `session.name = "band"` is found like `name` under `[session]`.
    private mutating func recordKeyPath(_ path: [String], in table: Table, line: Int) {
        record(path[0], in: table, line: line)
        if table == .root, path.count >= 2 {
            record(path[1], in: container(named: path[0]), line: line)
        }
    }

    /// The top-level table `name`, or its latest element when it is an array of tables.
    private func container(named name: String) -> Table {
        if let count = elementCounts[name], count > 0 { return .element(name, count - 1) }
        return .table(name)
    }

    private mutating func record(_ key: String, in table: Table, line: Int) {
        if keyLines[table, default: [:]][key] == nil { keyLines[table, default: [:]][key] = line }
    }

    /// Reads TOML text by Unicode scalars, counting lines by "\n" as toml++ does (a "\r\n" is one
    /// Character in Swift, so Characters would not do).
    private struct Scanner {
        private let scalars: [Unicode.Scalar]
        private var position = 0
        private(set) var line = 1

        init(_ text: String) {
            scalars = Array(text.unicodeScalars)
        }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            position + offset < scalars.count ? scalars[position + offset] : nil
        }

        mutating func advance() {
            guard position < scalars.count else { return }
            if scalars[position] == "\n" { line += 1 }
            position += 1
        }

        mutating func skipInlineSpace() {
            while let scalar = peek(), scalar == " " || scalar == "\t" || scalar == "\r" { advance() }
        }

        /// Skips to the next newline, not past it.
        mutating func skipComment() {
            while let scalar = peek(), scalar != "\n" { advance() }
        }

        mutating func skipBlankLinesAndComments() {
            while let scalar = peek() {
                switch scalar {
                case " ", "\t", "\r", "\n": advance()
                case "#": skipComment()
                default: return
                }
            }
        }

        /// Skips past the next newline, whatever comes before it.
        mutating func skipRestOfLine() {
            skipComment()
            advance()
        }

        /// A dotted key: bare (`sample_rate`), quoted (`"Kick In"`, `'x'`) parts joined by
        /// dots, with blanks around the dots. Stops at the first thing that is not part of a key.
        mutating func readKeyPath() -> [String] {
            var path: [String] = []
            while true {
                skipInlineSpace()
                guard let part = readKeyPart() else { return path }
                path.append(part)
                skipInlineSpace()
                guard peek() == "." else { return path }
                advance()
            }
        }

        private mutating func readKeyPart() -> String? {
            guard let first = peek() else { return nil }
            if first == "\"" || first == "'" { return readQuotedKey(quote: first) }
            var bare = String.UnicodeScalarView()
            while let scalar = peek(), Self.isBareKeyScalar(scalar) {
                bare.append(scalar)
                advance()
            }
            return bare.isEmpty ? nil : String(bare)
        }

        /// A bare key's characters: TOML 1.0's A-Z a-z 0-9 _ -, and anything past ASCII (TOML
        /// 1.1, which toml++ may accept) but the blanks and punctuation that end a key.
        private static func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.isASCII {
                return (scalar >= "A" && scalar <= "Z") || (scalar >= "a" && scalar <= "z")
                    || (scalar >= "0" && scalar <= "9") || scalar == "_" || scalar == "-"
            }
            return !scalar.isControlCharacter
        }

        /// A one-line quoted key; basic ones ("...") with their escapes decoded.
        private mutating func readQuotedKey(quote: Unicode.Scalar) -> String {
            advance()
            var key = String.UnicodeScalarView()
            while let scalar = peek(), scalar != "\n" {
                advance()
                if scalar == quote { break }
                if scalar == "\\", quote == "\"", let escaped = readEscape() {
                    key.append(escaped)
                } else {
                    key.append(scalar)
                }
            }
            return String(key)
        }

        /// The character after a backslash: \n \t \" \\ \uXXXX \UXXXXXXXX and the rest of TOML's.
        private mutating func readEscape() -> Unicode.Scalar? {
            guard let scalar = peek() else { return nil }
            advance()
            switch scalar {
            case "b": return "\u{8}"
            case "t": return "\t"
            case "n": return "\n"
            case "f": return "\u{C}"
            case "r": return "\r"
            case "e": return "\u{1B}"
            case "u", "U":
                var digits = ""
                for _ in 0..<(scalar == "u" ? 4 : 8) {
                    guard let digit = peek(), digit.properties.isASCIIHexDigit else { break }
                    digits.unicodeScalars.append(digit)
                    advance()
                }
                return UInt32(digits, radix: 16).flatMap(Unicode.Scalar.init)
            default: return scalar
            }
        }

        /// Skips a value to the end of its line, or of its last line when an array, an inline table
        /// or a multi-line string runs on; a trailing comment goes with it.
        mutating func skipValue() {
            var depth = 0
            while let scalar = peek() {
                switch scalar {
                case "\n":
                    if depth == 0 { return }
                    advance()
                case "\"", "'": skipString(quote: scalar)
                case "[", "{":
                    depth += 1
                    advance()
                case "]", "}":
                    depth = max(0, depth - 1)
                    advance()
                case "#": skipComment()
                default: advance()
                }
            }
        }

        /// Skips a string of any kind. A multi-line one ends at the last of a run of three to five
        /// quotes (TOML lets one or two quotes end its content); a one-line one at its quote or,
        /// unterminated, before the newline.
        private mutating func skipString(quote: Unicode.Scalar) {
            let isBasic = quote == "\""
            if peek(1) == quote, peek(2) == quote {
                for _ in 0..<3 { advance() }
                while let scalar = peek() {
                    if isBasic, scalar == "\\" {
                        advance()
                        advance()
                    } else if scalar == quote, peek(1) == quote, peek(2) == quote {
                        var run = 0
                        while peek() == quote, run < 5 {
                            advance()
                            run += 1
                        }
                        return
                    } else {
                        advance()
                    }
                }
                return
            }
            advance()
            while let scalar = peek(), scalar != "\n" {
                advance()
                if scalar == quote { return }
                if isBasic, scalar == "\\", peek() != "\n" { advance() }
            }
        }
    }
}
