import JackCapture

/// The keys of an interactive `jcap session` from a pipe (a script, whose keys are deliberate:
/// nothing is asked first): r records, space pauses and resumes, s or Enter stops the take, d
/// discards the last take (the next key answers: y discards, any other keeps it), q quits. A
/// person's terminal has `SessionKeyboard`.
enum SessionKeys {
    /// The command `key` sends; `pendingDiscard`: a discard is waiting for its answer.
    static func command(for key: UInt8, pendingDiscard: Int?) -> ControlCommand? {
        if pendingDiscard != nil { return .confirmDiscard(key == UInt8(ascii: "y") || key == UInt8(ascii: "Y")) }
        switch key {
        case UInt8(ascii: "r"), UInt8(ascii: "R"): return .record
        case UInt8(ascii: " "): return .togglePause
        case UInt8(ascii: "s"), UInt8(ascii: "S"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): return .stop
        case UInt8(ascii: "d"), UInt8(ascii: "D"): return .discardLastTake
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
        default: return nil
        }
    }
}
