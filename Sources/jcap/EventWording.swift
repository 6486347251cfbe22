/// What the console needs beyond an event to word it as jcap always has: the names the take's
/// channels go by, and the options as they were typed.
struct EventWording {
    /// Channels named after ports drop their client in the meters when the names stay distinct.
    var shortensNames = true
    /// The channels' names in a take's summary.
    var channelNames: [String] = []
    /// Said when take after take starts waiting (it quotes `--trigger` as typed).
    var waitingLine: String?
    /// `--pre-roll` as typed, for "recording from 0.5s before JACK frame N".
    var preRoll: String?
    /// A session's console: xruns counted on the status line and summed up after the take, not
    /// a line each; connections made are not news.
    var session = false
    /// `-v`: frame numbers, a line per xrun and connection, a line per track at the start.
    var verbose = false
    /// The server's sample rate: events then say where they fell as times in the take (frames
    /// only with `verbose`); nil: as the library words them.
    var sampleRate: Int?
    /// The session's name, for `--meter json`'s take summaries.
    var sessionName: String?
}
