import JackCapture
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

@Suite("jcap play's keys")
struct PlayKeysTests {
    @Test("space, arrows (also split across reads), q and Enter; other keys and sequences ignored")
    func parse() {
        var keys = PlayKeys()
        #expect(keys.keys(in: [UInt8(ascii: " "), 0x1B, UInt8(ascii: "["), UInt8(ascii: "C")]) == [.togglePause, .seekForward])
        #expect(keys.keys(in: [0x1B]) == [])
        #expect(keys.keys(in: [UInt8(ascii: "[")]) == [])
        #expect(keys.keys(in: [UInt8(ascii: "D"), UInt8(ascii: "q")]) == [.seekBack, .stop])
        #expect(keys.keys(in: [0x1B, UInt8(ascii: "x"), UInt8(ascii: "\n")]) == [.stop], "a broken sequence is dropped")
        #expect(keys.keys(in: [0x1B, UInt8(ascii: "["), UInt8(ascii: "A"), UInt8(ascii: "z")]) == [], "up arrow, z: nothing")
    }
}

@Suite("jcap session's keys")
struct SessionKeysTests {
    @Test("r, space, s and Enter, d, q; after d any key answers, only y discards")
    func commands() {
        let expected: [(String, ControlCommand?)] = [
            ("r", .record), ("R", .record), (" ", .togglePause), ("s", .stop), ("S", .stop), ("\n", .stop), ("\r", .stop),
            ("d", .discardLastTake), ("D", .discardLastTake), ("q", .quit), ("Q", .quit), ("x", nil), ("y", nil),
        ]
        for (key, command) in expected {
            #expect(SessionKeys.command(for: key.utf8.first!, pendingDiscard: nil) == command, "\(key.debugDescription)")
        }
        #expect(SessionKeys.command(for: UInt8(ascii: "y"), pendingDiscard: 3) == .confirmDiscard(true))
        #expect(SessionKeys.command(for: UInt8(ascii: "Y"), pendingDiscard: 3) == .confirmDiscard(true))
        for key in ["n", "q", "r", "\n"] {
            #expect(SessionKeys.command(for: key.utf8.first!, pendingDiscard: 3) == .confirmDiscard(false), "\(key.debugDescription)")
        }
    }
}
