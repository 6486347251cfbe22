import JackCapture

/// Text from files (track and session names, notes, paths a take log names) made safe to print:
/// every control character (C0, DEL, C1; ESC starts every terminal escape sequence) is written
/// as an escape (`\n`, `\t`, `\u{1B}`), so no file can move the cursor, clear the screen, retitle
/// the window or break a message over lines. Printable text, any script, passes unchanged.
enum TerminalText {
    static func escaped(_ text: String) -> String { text.escapingControlCharacters }
}
