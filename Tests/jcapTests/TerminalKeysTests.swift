import Testing
@testable import jcap

@Suite("Keys on the terminal")
struct TerminalKeysTests {
    @Test("space toggles pause; q, Q, Enter stop; other keys do nothing")
    func keys() {
        #expect(TerminalKeys.command(for: UInt8(ascii: " ")) == .togglePause)
        for key in ["q", "Q", "\n", "\r"] {
            #expect(TerminalKeys.command(for: key.utf8.first!) == .stop, "\(key.debugDescription)")
        }
        for key in ["p", "x", "\u{1B}", "s"] {
            #expect(TerminalKeys.command(for: key.utf8.first!) == nil, "\(key.debugDescription)")
        }
    }
}
