extension Unicode.Scalar {
    /// A C0 or C1 control character or DEL (Unicode's general category Cc): what a name from a
    /// file must not carry into a file name or onto a terminal.
    package var isControlCharacter: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
    }
}

extension String {
    /// The text with every control character written as an escape (`\n`, `\t`, `\u{1B}`), so it
    /// cannot move a terminal's cursor, start an escape sequence or break a message over lines.
    /// Printable text, any script, is unchanged.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.isControlCharacter:
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
