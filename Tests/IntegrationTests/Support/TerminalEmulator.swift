/// Just enough of a VT100/xterm to read back what jcap draws: text, carriage return and line
/// feed (scrolling at the bottom, the lines scrolled off kept), cursor up (`ESC[nA`, `ESC[nF`),
/// erase to the end of the line (`ESC[K`) and below (`ESC[J`); colours and cursor visibility
/// are read and dropped. Every character takes one cell (jcap draws none that take two).
struct TerminalEmulator {
    let columns: Int
    let rows: Int
    private(set) var cells: [[Character]]
    /// Lines scrolled off the top, oldest first.
    private(set) var scrolledOff: [String] = []
    private var row = 0
    private var column = 0
    private var escape: String?

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    /// The screen, each line without its trailing spaces.
    var screen: [String] { cells.map { String($0).withoutTrailingSpaces() } }

    /// Everything shown so far: the lines scrolled off, then the screen.
    var transcript: String { (scrolledOff + screen).joined(separator: "\n") }

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
                column = 0
                lineFeed()
            }
            cells[row][column] = character
            column += 1
        }
    }

    private mutating func lineFeed() {
        if row == rows - 1 {
            scrolledOff.append(String(cells.removeFirst()).withoutTrailingSpaces())
            cells.append(Array(repeating: " ", count: columns))
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
