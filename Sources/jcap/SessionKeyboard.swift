import Foundation
import JackCapture

/// The keys a person types in an interactive `jcap session` on a terminal, as commands for the
/// core (which decides what each may do now and guards what cannot be undone): r records (or
/// resumes a paused take), space pauses and resumes, s asks to stop the take (s again within 2 s
/// stops it), q quits (during a take, q again within 2 s), d discards the last take (y confirms);
/// a track's number arms or disarms it; x clears the clip indicators; m drops a marker in the
/// take; c, f and g mark the last take circled, false start or no good (again: cleared); n types
/// a note for it (a line, Enter saves it, Esc leaves the note as it was); `?` shows the keys. Enter does nothing on its own (it
/// ends a typed track number). An overdub monitoring the played take as a mix (`--mix`) mutes a
/// track with `M` and its number, solos it with `S` and its number (capitals: lower-case m and s
/// drop a marker and stop), as `jcap play --mix` does with its digits.
///
/// Track numbers of more than one digit are typed digit by digit: a number goes through as soon
/// as no longer number starts with it (with 12 tracks, 2 at once; 1 waits for a second digit),
/// or on Enter, or after `numberPause` seconds.
struct SessionKeyboard {
    static let numberPause: TimeInterval = 1

    /// The digits typed toward a track number, and when the last came.
    private(set) var typedNumber = ""
    private var typedAt = Date.distantPast
    /// `M` or `S` came first: the number typed next mutes or solos that track of the mix
    /// (`.toggleMute` or `.toggleSolo`) instead of arming it.
    private var mixKey: MixKey?

    enum MixKey { case mute, solo }

    /// What a key typed now asks for: commands, the help, or a line to say.
    enum Action: Equatable {
        case command(ControlCommand)
        case showKeys
        case say(String)
    }

    /// A note being typed (after n): the take it is for and its text so far, as UTF-8.
    private var note: (take: Int, text: [UInt8])?

    /// What the console shows under the meters while a note is typed.
    var prompt: String? {
        guard let note else { return nil }
        return "note for take \(note.take): \(String(decoding: note.text, as: UTF8.self))_   (Enter saves, Esc cancels)"
    }

    /// The actions of `key`, typed at `now` with the core in `state`.
    mutating func actions(for key: UInt8, state: ControlState, now: Date = Date()) -> [Action] {
        if let typing = note {
            switch key {
            case 0x0D, 0x0A:
                note = nil
                return [.command(.note(take: typing.take, text: String(decoding: typing.text, as: UTF8.self)))]
            case 0x1B:
                note = nil
                return [.say("note not changed")]
            case 0x7F, 0x08:
                // One character back: its UTF-8 continuation bytes with it.
                while let last = note?.text.popLast(), last & 0xC0 == 0x80 {}
                return []
            default:
                if key >= 0x20 || key == 0x09 { note?.text.append(key == 0x09 ? 0x20 : key) }
                return []
            }
        }
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
        case UInt8(ascii: "M"): mixKey = .mute
        case UInt8(ascii: "S"): mixKey = .solo
        case UInt8(ascii: "r"), UInt8(ascii: "R"): actions.append(.command(.record))
        case UInt8(ascii: " "): actions.append(.command(.togglePause))
        case UInt8(ascii: "s"): actions.append(.command(.requestStop))
        case UInt8(ascii: "d"), UInt8(ascii: "D"): actions.append(.command(.discardLastTake))
        case UInt8(ascii: "x"), UInt8(ascii: "X"): actions.append(.command(.clearClips))
        case UInt8(ascii: "m"): actions.append(.command(.dropMarker))
        case UInt8(ascii: "c"), UInt8(ascii: "C"): actions.append(toggle(.circled, state))
        case UInt8(ascii: "f"), UInt8(ascii: "F"): actions.append(toggle(.falseStart, state))
        case UInt8(ascii: "g"), UInt8(ascii: "G"): actions.append(toggle(.noGood, state))
        case UInt8(ascii: "n"), UInt8(ascii: "N"):
            if let take = state.lastTake {
                note = (take, Array((state.lastTakeNote ?? "").utf8))
            } else {
                actions.append(.say("no take yet to write a note for"))
            }
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): actions.append(.command(.requestQuit))
        case UInt8(ascii: "?"), UInt8(ascii: "h"), UInt8(ascii: "H"): actions.append(.showKeys)
        default: break  // Enter (which ended a typed number) and any other key: nothing.
        }
        return actions
    }

    /// The last take marked so, or its mark cleared if it has that mark already.
    private func toggle(_ mark: TakeMark, _ state: ControlState) -> Action {
        guard let take = state.lastTake else { return .say("no take yet to mark") }
        return .command(.mark(take: take, state.lastTakeMark == mark ? nil : mark))
    }

    /// A typed track number that has waited `numberPause`: its arming changes now.
    mutating func actionsOnPause(state: ControlState, now: Date = Date()) -> [Action] {
        guard !typedNumber.isEmpty, now.timeIntervalSince(typedAt) >= Self.numberPause else { return [] }
        return finishNumber(state)
    }

    /// The typed number's track armed if it was disarmed, disarmed if armed; nothing for a
    /// number no track has.
    private mutating func finishNumber(_ state: ControlState) -> [Action] {
        let mix = mixKey
        defer { typedNumber = ""; mixKey = nil }
        guard let number = Int(typedNumber), (1...state.meters.count).contains(number) else { return [] }
        switch mix {
        case .mute?: return [.command(.toggleMute(track: number))]
        case .solo?: return [.command(.toggleSolo(track: number))]
        case nil: break
        }
        let track = state.meters[number - 1].name
        return [.command(state.armedTracks.contains(track) ? .disarm(track: track) : .arm(track: track))]
    }

    /// The keys, as `?` shows them.
    static let help = [
        "keys: r record (or resume)   space pause/resume   s s stop the take",
        "      q quit (q q during a take)   1..N arm/disarm track N between takes",
        "      m marker here   c circled   f false start   g no good (last take;",
        "      the same key again clears)   n note for the last take   x clear CLIP",
        "      d discard the last take (y confirms)   ? these keys",
        "      M N / S N mute / solo track N of an overdub's --mix",
    ]
}
