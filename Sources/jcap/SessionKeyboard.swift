import Foundation
import JackCapture

/// The keys a person types in an interactive `jcap session` on a terminal, as commands for the
/// core (which decides what each may do now and guards what cannot be undone): r records (or
/// resumes a paused take), space pauses and resumes, s asks to stop the take (s again within 2 s
/// stops it), q quits (during a take, q again within 2 s), d discards the last take (y confirms);
/// a track's number arms or disarms it; c clears the clip indicators; `?` shows the keys. Enter does nothing on its own (it
/// ends a typed track number).
///
/// Track numbers of more than one digit are typed digit by digit: a number goes through as soon
/// as no longer number starts with it (with 12 tracks, 2 at once; 1 waits for a second digit),
/// or on Enter, or after `numberPause` seconds.
struct SessionKeyboard {
    static let numberPause: TimeInterval = 1

    /// The digits typed toward a track number, and when the last came.
    private(set) var typedNumber = ""
    private var typedAt = Date.distantPast

    /// What a key typed now asks for: commands, or the help.
    enum Action: Equatable {
        case command(ControlCommand)
        case showKeys
    }

    /// The actions of `key`, typed at `now` with the core in `state`.
    mutating func actions(for key: UInt8, state: ControlState, now: Date = Date()) -> [Action] {
        let yes = key == UInt8(ascii: "y") || key == UInt8(ascii: "Y")
        if state.pendingDiscard != nil { return [.command(.confirmDiscard(yes))] }
        // The same key again (or y) answers yes; any other key keeps the take recording.
        if state.pendingStop != nil {
            return [.command(.confirmStop(yes || key == UInt8(ascii: "s") || key == UInt8(ascii: "S")))]
        }
        if state.pendingQuit != nil {
            return [.command(.confirmQuit(yes || key == UInt8(ascii: "q") || key == UInt8(ascii: "Q")))]
        }
        if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(key) {
            typedNumber.append(Character(UnicodeScalar(key)))
            typedAt = now
            guard let number = Int(typedNumber), number * 10 <= state.meters.count else { return finishNumber(state) }
            return []
        }
        var actions = finishNumber(state)
        switch key {
        case UInt8(ascii: "r"), UInt8(ascii: "R"): actions.append(.command(.record))
        case UInt8(ascii: " "): actions.append(.command(.togglePause))
        case UInt8(ascii: "s"), UInt8(ascii: "S"): actions.append(.command(.requestStop))
        case UInt8(ascii: "d"), UInt8(ascii: "D"): actions.append(.command(.discardLastTake))
        case UInt8(ascii: "c"), UInt8(ascii: "C"): actions.append(.command(.clearClips))
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): actions.append(.command(.requestQuit))
        case UInt8(ascii: "?"), UInt8(ascii: "h"), UInt8(ascii: "H"): actions.append(.showKeys)
        default: break  // Enter (which ended a typed number) and any other key: nothing.
        }
        return actions
    }

    /// A typed track number that has waited `numberPause`: its arming changes now.
    mutating func actionsOnPause(state: ControlState, now: Date = Date()) -> [Action] {
        guard !typedNumber.isEmpty, now.timeIntervalSince(typedAt) >= Self.numberPause else { return [] }
        return finishNumber(state)
    }

    /// The typed number's track armed if it was disarmed, disarmed if armed; nothing for a
    /// number no track has.
    private mutating func finishNumber(_ state: ControlState) -> [Action] {
        defer { typedNumber = "" }
        guard let number = Int(typedNumber), (1...state.meters.count).contains(number) else { return [] }
        let track = state.meters[number - 1].name
        return [.command(state.armedTracks.contains(track) ? .disarm(track: track) : .arm(track: track))]
    }

    /// The keys, as `?` shows them.
    static let help = [
        "keys: r record (resumes a paused take)  space pause/resume  s s stop the take  q quit (q q in a take)",
        "      1..N arm or disarm track N (between takes)  c clear the CLIP indicators",
        "      d discard the last take (y confirms)  ? these keys",
    ]
}
