/// Just enough of a VT100/xterm to read back what jcap draws: text, carriage return and line
/// feed (scrolling at the bottom, the lines scrolled off kept), cursor up (`ESC[nA`, `ESC[nF`),
/// erase to the end of the line (`ESC[K`) and below (`ESC[J`); colours and cursor visibility
/// are read and dropped. Every character takes one cell (jcap draws none that take two).
struct TerminalEmulator {
    let columns: Int
    let rows: Int
    private(set) var cells: [[Character]]
    /// Lines scrolled off the top, oldest first (a line the terminal wrapped is one line here).
    private(set) var scrolledOff: [String] = []
    /// Whether each row on screen goes on in the next (the text reached the last column).
    private var continues: [Bool]
    private var lastScrolledContinues = false
    private var row = 0
    private var column = 0
    private var escape: String?

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        continues = Array(repeating: false, count: rows)
    }

    /// The screen, each line without its trailing spaces.
    var screen: [String] { cells.map { String($0).withoutTrailingSpaces() } }

    /// Everything shown so far: the lines scrolled off, then the screen, wrapped lines joined.
    var transcript: String {
        var lines = scrolledOff
        var joinNext = lastScrolledContinues
        for (index, row) in cells.enumerated() {
            let text = joinNext ? String(row) : String(row).withoutTrailingSpaces()
            if joinNext, !lines.isEmpty { lines[lines.count - 1] += text } else { lines.append(text) }
            joinNext = continues[index]
            if !joinNext { lines[lines.count - 1] = lines[lines.count - 1].withoutTrailingSpaces() }
        }
        return lines.joined(separator: "\n")
    }

    mutating func feed(_ text: String) {
        for character in text { feed(character) }
    }

    private mutating func feed(_ character: Character) {
        if var sequence = escape {
            sequence.append(character)
            if sequence == "[" || (sequence.count > 1 && !character.isLetter) {
                escape = sequence
                return
            }
            escape = nil
            if sequence.first == "[" { control(sequence) }
            return
        }
        switch character {
        case "\u{1B}": escape = ""
        case "\r": column = 0
        case "\n": lineFeed()
        case "\r\n":
            column = 0
            lineFeed()
        default:
            if column >= columns {
                continues[row] = true
                column = 0
                lineFeed()
                continues[row] = false
            }
            cells[row][column] = character
            column += 1
        }
    }

    private mutating func lineFeed() {
        if row == rows - 1 {
            let text = String(cells.removeFirst())
            if lastScrolledContinues, !scrolledOff.isEmpty {
                scrolledOff[scrolledOff.count - 1] += text
            } else {
                scrolledOff.append(text)
            }
            lastScrolledContinues = continues.removeFirst()
            if !lastScrolledContinues { scrolledOff[scrolledOff.count - 1] = scrolledOff[scrolledOff.count - 1].withoutTrailingSpaces() }
            cells.append(Array(repeating: " ", count: columns))
            continues.append(false)
        } else {
            row += 1
        }
    }

    /// `[` parameters, final letter.
    private mutating func control(_ sequence: String) {
        let final = sequence.last!
        let parameters = sequence.dropFirst().dropLast()
        let count = max(1, Int(parameters) ?? 1)
        switch final {
        case "A": row = max(0, row - count)
        case "F":
            row = max(0, row - count)
            column = 0
        case "K":
            for index in min(column, columns - 1)..<columns { cells[row][index] = " " }
        case "J":
            for index in min(column, columns - 1)..<columns { cells[row][index] = " " }
            for line in (row + 1)..<rows { cells[line] = Array(repeating: " ", count: columns) }
            for line in row..<rows { continues[line] = false }
        default: break  // colours (m), cursor shown or hidden (?25h, ?25l)
        }
    }
}

extension String {
    func withoutTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
