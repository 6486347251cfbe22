/// The keys of `jcap play`: space pauses and resumes, the left and right arrows seek 5 s back and
/// forward, `q` or Enter stops. Arrows come as escape sequences (`ESC [ D`, `ESC [ C`), possibly
/// split across reads, so the parser keeps what it has seen of one.
struct PlayKeys {
    enum Key: Equatable {
        case togglePause
        case seekBack
        case seekForward
        case stop
        /// In a mix: a digit mutes or unmutes track 1-9 (0: track 10).
        case toggleMute(track: Int)
        /// In a mix: `s` then a digit solos or unsolos that track.
        case toggleSolo(track: Int)
    }

    /// `s` was pressed: the next digit solos.
    private var soloPending = false

    /// How far an arrow seeks.
    static let seekSeconds = 5

    /// Bytes of an escape sequence seen so far (at most `ESC [`).
    private var pending: [UInt8] = []

    /// The keys in `bytes`, in order; an incomplete escape sequence waits for the next bytes.
    mutating func keys(in bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        for byte in bytes {
            if !pending.isEmpty {
                if pending.count == 1 {
                    pending = byte == UInt8(ascii: "[") ? pending + [byte] : []
                    continue
                }
                pending = []
                switch byte {
                case UInt8(ascii: "C"): keys.append(.seekForward)
                case UInt8(ascii: "D"): keys.append(.seekBack)
                default: break
                }
                continue
            }
            if let digit = Self.track(forDigit: byte) {
                keys.append(soloPending ? .toggleSolo(track: digit) : .toggleMute(track: digit))
                soloPending = false
                continue
            }
            soloPending = byte == UInt8(ascii: "s") || byte == UInt8(ascii: "S")
            switch byte {
            case 0x1B: pending = [byte]
            case UInt8(ascii: " "): keys.append(.togglePause)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): keys.append(.stop)
            default: break
            }
        }
        return keys
    }

    /// The track a digit key names: 1-9, and 0 for 10.
    static func track(forDigit byte: UInt8) -> Int? {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        let digit = Int(byte - UInt8(ascii: "0"))
        return digit == 0 ? 10 : digit
    }
}
