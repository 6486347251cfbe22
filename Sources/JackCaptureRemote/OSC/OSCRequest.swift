import JackCapture

/// What an OSC message asks of jcap, read from its path and arguments (the address table in the
/// README's "Remote control: OSC"), or why it cannot be read (`OSCRequestError`: replied as
/// `/jcap/error`). Only reading: what a command does is the control core's business.
enum OSCRequest: Equatable {
    /// A command for the core as it is.
    case command(ControlCommand)
    /// A trigger (a controller's button) released: nothing to do.
    case ignored
    /// Discard the last take, which must be take `take` (a stray message cannot delete a take).
    case discard(take: Int)
    /// The state and every track, to the reply address or to `port` on the sender's host.
    case status(port: Int?)
    /// Meters and state changes, `rate` meter messages a second per track, to the sender or to
    /// `port` on its host.
    case subscribe(port: Int?, rate: Double?)
    case unsubscribe(port: Int?)

    /// Meter rates a subscriber may ask for (a second), and the one it gets unasked.
    static let rates: ClosedRange<Double> = 1...50
    static let defaultRate = 20.0

    /// The words `/jcap/mark` takes, and the mark each means (nil: none).
    static let markWords: [(word: String, mark: TakeMark?)] = [
        ("circled", .circled), ("false", .falseStart), ("nogood", .noGood), ("none", nil),
        ("false-start", .falseStart), ("no-good", .noGood),
    ]

    /// The word `/jcap/state` and `/jcap/take` use for a mark.
    static func word(for mark: TakeMark?) -> String {
        markWords.first { $0.mark == mark }?.word ?? "none"
    }

    init(_ message: OSCMessage) throws(OSCRequestError) {
        let arguments = message.arguments
        let tags = Array(message.typeTags)
        func fail(_ reason: String) -> OSCRequestError { OSCRequestError(path: message.path, reason: reason) }
        func expectNone(_ usage: String) throws(OSCRequestError) {
            guard arguments.isEmpty else { throw fail("expects \(usage)") }
        }
        /// A switch or a take number: an int, or a float or double that is a whole number.
        func number(_ index: Int, _ usage: String) throws(OSCRequestError) -> Int {
            guard index < arguments.count, let value = arguments[index]?.intValue else { throw fail("expects \(usage)") }
            return value
        }
        func text(_ index: Int, _ usage: String) throws(OSCRequestError) -> String {
            guard index < arguments.count, let value = arguments[index]?.stringValue else { throw fail("expects \(usage)") }
            return value
        }
        /// A port on the sender's host, only as an int (a float is a rate).
        func portArgument(_ index: Int, _ usage: String) throws(OSCRequestError) -> Int {
            guard index < tags.count, tags[index] == "i", case .int(let value)? = arguments[index] else { throw fail("expects \(usage)") }
            guard (1...65_535).contains(value) else { throw fail("port \(value) is not a UDP port (1 to 65535)") }
            return Int(value)
        }

        switch message.path {
        case "/jcap/record", "/jcap/stop", "/jcap/marker", "/jcap/clearclips":
            // A controller's button sends 1 when pressed and 0 when released: only the press acts.
            let usage = "no argument, or one number (0 is ignored: a button's release)"
            guard arguments.count <= 1 else { throw fail("expects \(usage)") }
            if arguments.count == 1, try number(0, usage) == 0 {
                self = .ignored
                return
            }
            self = switch message.path {
            case "/jcap/record": .command(.record)
            // A remote stop is a deliberate act (a controller's button), so it stops at once.
            case "/jcap/stop": .command(.stop)
            case "/jcap/marker": .command(.dropMarker)
            default: .command(.clearClips)
            }
        case "/jcap/pause":
            let usage = "no argument (pause), or i:1 (pause) or i:0 (resume)"
            guard arguments.count <= 1 else { throw fail("expects \(usage)") }
            let pauses = arguments.isEmpty ? 1 : try number(0, usage)
            guard pauses == 0 || pauses == 1 else { throw fail("expects \(usage)") }
            self = .command(pauses == 1 ? .pause : .resume)
        case "/jcap/resume":
            try expectNone("no argument")
            self = .command(.resume)
        case "/jcap/discard":
            let usage = "i:take, the number of the last take (it is discarded only if it is the last)"
            guard arguments.count == 1 else { throw fail("expects \(usage)") }
            self = .discard(take: try number(0, usage))
        case "/jcap/arm":
            let usage = "s:track and i:1 (arm) or i:0 (disarm)"
            guard arguments.count == 1 || arguments.count == 2 else { throw fail("expects \(usage)") }
            let track = try text(0, usage)
            let arms = arguments.count == 1 ? 1 : try number(1, usage)
            guard arms == 0 || arms == 1 else { throw fail("expects \(usage)") }
            self = .command(arms == 1 ? .arm(track: track) : .disarm(track: track))
        case "/jcap/mark":
            let usage = "i:take and s:mark (circled, false, nogood or none)"
            guard arguments.count == 2 else { throw fail("expects \(usage)") }
            let take = try number(0, usage)
            let word = try text(1, usage)
            guard let found = Self.markWords.first(where: { $0.word == word.lowercased() }) else {
                throw fail("no mark '\(word)' (circled, false, nogood or none)")
            }
            self = .command(.mark(take: take, found.mark))
        case "/jcap/note":
            let usage = "i:take and s:text (empty text removes the note)"
            guard arguments.count == 2 else { throw fail("expects \(usage)") }
            self = .command(.note(take: try number(0, usage), text: try text(1, usage)))
        case "/jcap/status":
            let usage = "no argument, or i:port (on the sender's host) for the reply"
            guard arguments.count <= 1 else { throw fail("expects \(usage)") }
            self = .status(port: arguments.isEmpty ? nil : try portArgument(0, usage))
        case "/jcap/subscribe":
            let usage = "[i:port] [f:rate] (port on the sender's host; rate in meter messages a second, 1 to 50)"
            var port: Int?
            var rate: Double?
            for index in arguments.indices {
                switch (index < tags.count ? tags[index] : "?", arguments[index]) {
                case ("i", _) where index == 0 && port == nil: port = try portArgument(0, usage)
                case (_, .float(let value)?) where rate == nil: rate = Double(value)
                case (_, .double(let value)?) where rate == nil: rate = value
                default: throw fail("expects \(usage)")
                }
            }
            if let rate, !rate.isFinite { throw fail("expects \(usage)") }
            self = .subscribe(port: port, rate: rate)
        case "/jcap/unsubscribe":
            let usage = "no argument, or the i:port subscribed"
            guard arguments.count <= 1 else { throw fail("expects \(usage)") }
            self = .unsubscribe(port: arguments.isEmpty ? nil : try portArgument(0, usage))
        default:
            throw fail("unknown path (see /jcap/status; the README lists every path)")
        }
    }
}

/// Why an OSC message was not carried out: replied as `/jcap/error s:path s:reason`.
struct OSCRequestError: Error, Equatable {
    var path: String
    var reason: String
}
