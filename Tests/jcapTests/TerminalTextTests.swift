import Testing
import JackCapture
@testable import jcap

@Suite("Text from files, made safe for a terminal")
struct TerminalTextTests {
    @Test("C0, DEL and C1 controls are escaped; ESC sequences lose their ESC; printable text is kept", arguments: [
        ("Kick In", "Kick In"),
        ("Überkopf 🎤 ドラム", "Überkopf 🎤 ドラム"),
        ("\u{1B}[2JVox", "\\u{1B}[2JVox"),
        ("\u{1B}]0;owned\u{7}", "\\u{1B}]0;owned\\u{7}"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("del\u{7F} csi\u{9B}31m nul\u{0}", "del\\u{7F} csi\\u{9B}31m nul\\u{0}"),
    ])
    func escapes(text: String, expected: String) {
        #expect(TerminalText.escaped(text) == expected)
        let escaped = TerminalText.escaped(text)
        #expect(!escaped.unicodeScalars.contains { $0.isControlCharacter })
    }
}
