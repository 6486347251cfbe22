/// Why a session file cannot be used, located as an engineer fixes it: the file, the line, the
/// track, the key. Its description is one line, like a compiler's, so an editor or a terminal
/// can jump to it:
///
///     sessions/band.toml:12: track 'Kick In': source: capture channels count from 1, not 0
///     sessions/band.toml:3: sample_rate: expected a whole number of hertz (sample_rate = 48000), not a string ("48k")
///     sessions/band.toml: no armed track: every [[track]] has arm = false
///
/// Made by `SessionDefinition.load(path:)` and `parse(_:path:)` for the file itself, and by
/// `SessionDefinition.error(track:key:_:)` and `error(sessionKey:_:)` for what is found wrong
/// later, against the JACK server (a channel it lacks, another sample rate).
public struct SessionFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The session file as it was named when loaded.
    public var path: String
    /// 1-based; nil when the problem has no line of its own (no [session] table, no track armed).
    public var line: Int?
    /// The key at fault (`source`, `sample_rate`); nil for a syntax error or the file as a whole.
    public var key: String?
    /// What the key belongs to, when it is not [session]: `track 'Kick In'`, or `track 3` for a
    /// track without a usable name (counting [[track]] tables from 1).
    public var context: String?
    /// What is wrong and, where it can be said, what would work.
    public var message: String

    public init(path: String, line: Int? = nil, key: String? = nil, context: String? = nil, message: String) {
        self.path = path
        self.line = line
        self.key = key
        self.context = context
        self.message = message
    }

    /// `path:line: context: key: message`, the parts that are nil left out. Always one line: a
    /// newline or other control character inside a quoted name is written as an escape, so no
    /// value from the file can break the line or reach the terminal as a control code.
    public var description: String {
        var text = path
        if let line { text += ":\(line)" }
        text += ": "
        if let context { text += context + ": " }
        if let key { text += key + ": " }
        text += message
        return text.escapingControlCharacters
    }
}
