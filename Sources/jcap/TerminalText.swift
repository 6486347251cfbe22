/// Text from files (track and session names, notes, paths a take log names) made safe to print:
/// every control character (C0, DEL, C1; ESC starts every terminal escape sequence) is written
/// as an escape (`\n`, `\t`, `\u{1B}`), so no file can move the cursor, clear the screen, retitle
/// the window or break a message over lines. Printable text, any script, passes unchanged.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where isControl(scalar): escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// C0 and C1 control characters and DEL (Unicode's general category Cc).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
