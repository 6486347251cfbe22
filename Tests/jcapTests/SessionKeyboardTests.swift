import Foundation
import JackCapture
import Testing
@testable import jcap

@Suite("jcap session's keys on a terminal")
struct SessionKeyboardTests {
    /// A session of `tracks` tracks, those in `armed` armed, between takes.
    static func state(tracks: Int, armed: [Int]) -> ControlState {
        var state = ControlState(mode: .ready, sampleRate: 48_000)
        state.sessionName = "s"
        state.meters = (1...tracks).map { ControlState.TrackMeter(name: "T\($0)", reading: .silent) }
        state.armedTracks = armed.map { "T\($0)" }
        return state
    }

    func type(_ keys: String, _ keyboard: inout SessionKeyboard, _ state: ControlState) -> [SessionKeyboard.Action] {
        keys.utf8.flatMap { keyboard.actions(for: $0, state: state) }
    }

    @Test("with 9 tracks or fewer a digit arms or disarms its track at once")
    func singleDigits() {
        var keyboard = SessionKeyboard()
        let state = Self.state(tracks: 8, armed: [1, 2])
        #expect(type("1", &keyboard, state) == [.command(.disarm(track: "T1"))])
        #expect(type("3", &keyboard, state) == [.command(.arm(track: "T3"))])
        #expect(type("9", &keyboard, state) == [], "no track 9")
        #expect(type("0", &keyboard, state) == [], "no track 0")
    }

    @Test("with 12 tracks, 1 waits for a second digit, Enter or a pause; 2 goes at once")
    func twoDigits() {
        var keyboard = SessionKeyboard()
        let state = Self.state(tracks: 12, armed: [12])
        #expect(type("1", &keyboard, state) == [])
        #expect(type("2", &keyboard, state) == [.command(.disarm(track: "T12"))])
        #expect(type("2", &keyboard, state) == [.command(.arm(track: "T2"))])
        #expect(type("1\r", &keyboard, state) == [.command(.arm(track: "T1"))], "Enter ends the number")
        #expect(type("1", &keyboard, state) == [])
        #expect(keyboard.actionsOnPause(state: state, now: Date()) == [], "not yet")
        #expect(keyboard.actionsOnPause(state: state, now: Date() + 1.5) == [.command(.arm(track: "T1"))])
        #expect(type("1r", &keyboard, state) == [.command(.arm(track: "T1")), .command(.record)], "a command key ends it too")
    }

    @Test("s asks to stop and s or y confirms; q asks during a take and q or y confirms; other keys decline")
    func guardedKeys() {
        var keyboard = SessionKeyboard()
        var state = Self.state(tracks: 2, armed: [1])
        state.mode = .recording
        #expect(type("s", &keyboard, state) == [.command(.requestStop)])
        #expect(type("q", &keyboard, state) == [.command(.requestQuit)])
        state.pendingStop = 1
        #expect(type("s", &keyboard, state) == [.command(.confirmStop(true))])
        #expect(type("y", &keyboard, state) == [.command(.confirmStop(true))])
        #expect(type("q", &keyboard, state) == [.command(.confirmStop(false))])
        #expect(type("\r", &keyboard, state) == [.command(.confirmStop(false))])
        state.pendingStop = nil
        state.pendingQuit = 1
        #expect(type("q", &keyboard, state) == [.command(.confirmQuit(true))])
        #expect(type("Y", &keyboard, state) == [.command(.confirmQuit(true))])
        #expect(type("s", &keyboard, state) == [.command(.confirmQuit(false))])
    }

    @Test("Enter alone does nothing; ? and h show the keys")
    func enterAndHelp() {
        var keyboard = SessionKeyboard()
        let state = Self.state(tracks: 2, armed: [1])
        #expect(type("\r\n", &keyboard, state) == [])
        #expect(type("?", &keyboard, state) == [.showKeys])
        #expect(type("h", &keyboard, state) == [.showKeys])
    }

    @Test("m drops a marker; c, f and g mark the last take, again clears; without a take they say so")
    func marks() {
        var keyboard = SessionKeyboard()
        var state = Self.state(tracks: 2, armed: [1])
        #expect(type("c", &keyboard, state) == [.say("no take yet to mark")])
        #expect(type("n", &keyboard, state) == [.say("no take yet to write a note for")])
        state.lastTake = 3
        #expect(type("m", &keyboard, state) == [.command(.dropMarker)])
        #expect(type("c", &keyboard, state) == [.command(.mark(take: 3, .circled))])
        #expect(type("f", &keyboard, state) == [.command(.mark(take: 3, .falseStart))])
        #expect(type("g", &keyboard, state) == [.command(.mark(take: 3, .noGood))])
        state.lastTakeMark = .circled
        #expect(type("c", &keyboard, state) == [.command(.mark(take: 3, nil))], "circled again: cleared")
        #expect(type("x", &keyboard, state) == [.command(.clearClips)])
    }

    @Test("n types a note: every key is text (q and s too), backspace, Enter saves, Esc keeps the old one")
    func note() {
        var keyboard = SessionKeyboard()
        var state = Self.state(tracks: 2, armed: [1])
        state.lastTake = 4
        state.lastTakeNote = "old"
        #expect(type("n", &keyboard, state) == [])
        #expect(keyboard.prompt?.hasPrefix("note for take 4: old_") == true)
        #expect(type("\u{7F}\u{7F}\u{7F}q s é\u{7F}!", &keyboard, state) == [])
        #expect(keyboard.prompt?.hasPrefix("note for take 4: q s !_") == true)
        #expect(type("\r", &keyboard, state) == [.command(.note(take: 4, text: "q s !"))])
        #expect(keyboard.prompt == nil)
        #expect(type("n", &keyboard, state) == [])
        #expect(type("zz\u{1B}", &keyboard, state) == [.say("note not changed")])
        #expect(type("s", &keyboard, state) == [.command(.requestStop)], "keys are commands again")
    }

    @Test("M and a number mutes a track of an overdub's mix, S and a number solos it; m and s keep their meaning")
    func muteAndSolo() {
        var keyboard = SessionKeyboard()
        let state = Self.state(tracks: 12, armed: [1])
        #expect(type("M3", &keyboard, state) == [.command(.toggleMute(track: 3))])
        #expect(type("S12", &keyboard, state) == [.command(.toggleSolo(track: 12))])
        #expect(type("S1\r", &keyboard, state) == [.command(.toggleSolo(track: 1))], "Enter ends the number")
        #expect(type("3", &keyboard, state) == [.command(.arm(track: "T3"))], "a number alone arms again")
        #expect(type("Mr", &keyboard, state) == [.command(.record)], "another key cancels M")
        #expect(type("m", &keyboard, state) == [.command(.dropMarker)])
        #expect(type("s", &keyboard, state) == [.command(.requestStop)])
        #expect(SessionKeyboard.help.contains { $0.contains("M N / S N mute / solo track N") })
    }
}
