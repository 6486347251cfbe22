/// What each exit status means, written once: the help texts' "Exit status" paragraphs and
/// docs/exit-status.md are generated from it.
extension ExitStatus {
    /// The jcap commands that end with these statuses, each documenting its own.
    enum Command: String, CaseIterable, Sendable {
        case record, session, play, takes
    }

    /// What the status means, for a person.
    var meaning: String {
        switch self {
        case .success: "done (stopped by a key or Ctrl-C counts as done)"
        case .failure: "an unexpected failure"
        case .lostFrames: "frames lost, each reported: recording, written as silence at their true position (a period next to a loss whose place the frame times cannot prove is reported as placement uncertain); playing, silence played where the reader fell behind"
        case .writeFailed: "writing a file failed, mid-take or at its start (a full disk: the folder and its free space named); what was written is readable"
        case .serverShutDown: "the JACK server shut down; what came before is in the file"
        case .cancelled: "stopped before the start: nothing recorded, no file written"
        case .sampleRateChanged: "the server's sample rate changed: a take stopped there (the file is valid), playing stopped there"
        case .diskFull: "a session's take stopped, or could not start, because the disk was (nearly) full; every file finalized"
        case .placementUncertain: "no frame lost, but some periods may not be at their true position (callbacks ran late several periods in a row); each span reported at its take position"
        case .noServer: "no JACK server"
        case .unknownSource: "unknown port, channel or session track, or a bad channel list"
        case .badTime: "a bad time or duration"
        case .startInPast: "the start time is in the past"
        case .outputUnwritable: "an unwritable path"
        case .outputExists: "the file exists"
        case .directIORefused: "--io direct where the file system or the encoding refuses O_DIRECT"
        case .noMasterTimecode: "--master-clock names a port with no master timecode on it (jcap timecode not running on the master, not patched to the slave, or the link not carrying float samples)"
        case .unsupportedFormat: "a format, encoding or rate the file cannot have, a file libsndfile cannot read, or files played together at different rates"
        case .tooManyChannels: "too many channels for the format"
        case .jackRefused: "JACK refused a port, a connection or the activation"
        case .badSessionFile: "bad session file (file:line: key: why)"
        case .sessionSampleRateMismatch: "the server runs another sample rate than the session's"
        case .takeLogFailed: "the take log failed (a take's line could not be written, say on a disk gone read-only: the take is logged, its files repaired, when the folder is next opened writable), another jcap has the session open, or take numbers are used up"
        case .noSuchTake: "a take recording (stop it first), or a take the log lacks, discarded, or at another sample rate than the server's"
        case .inputUnreadable: "a missing or unreadable file"
        case .decodeFailed: "a file stopped decoding partway (a damaged file); what came before it played"
        case .remoteFailed: "the browser remote (--remote) could not listen: the port taken, or an address not this machine's"
        case .oscUnavailable: "the UDP port given to --osc is taken or cannot be listened on"
        case .sessionManagerFailed: "the session manager NSM_URL names refused jcap's announce or did not answer it"
        case .usage: "a bad option, or a value out of its range (nothing done), or a --buffer longer than this machine can hold"
        }
    }

    /// The statuses `command` can end with, in order.
    static func statuses(of command: Command) -> [ExitStatus] {
        let recording: [ExitStatus] = [
            .success, .lostFrames, .writeFailed, .serverShutDown, .cancelled, .sampleRateChanged, .placementUncertain, .noServer,
            .unknownSource, .badTime, .startInPast, .outputUnwritable, .outputExists, .unsupportedFormat,
            .tooManyChannels, .jackRefused, .directIORefused, .noMasterTimecode,
        ]
        return switch command {
        case .record: recording + [.usage]
        case .session: (recording + [.diskFull, .badSessionFile, .sessionSampleRateMismatch, .takeLogFailed, .noSuchTake,
                                     .inputUnreadable, .remoteFailed, .oscUnavailable, .sessionManagerFailed, .usage]).sorted { $0.rawValue < $1.rawValue }
        case .play: [.success, .lostFrames, .serverShutDown, .sampleRateChanged, .noServer, .unknownSource, .badTime, .startInPast,
                     .unsupportedFormat, .jackRefused, .inputUnreadable, .decodeFailed, .usage]
        case .takes: [.success, .badSessionFile, .takeLogFailed, .noSuchTake, .usage]
        }
    }

    /// The failures in the order `worst(_:)` ranks them, mildest first.
    static var severityOrder: [ExitStatus] {
        allCases.filter { $0 != .success }.sorted { $0.severity < $1.severity }
    }

    /// The "Exit status" paragraph of `command`'s help, one line: the help wraps it to the terminal.
    static func helpParagraph(for command: Command) -> String {
        var text = "Exit status: " + statuses(of: command).map { "\($0.rawValue) \($0.meaning)" }.joined(separator: "; ") + "."
        if command != .takes {
            text += " When several things went wrong (take after take), the worst: the highest number, except that 6 (a take"
                + " that never started) counts only when nothing else went wrong and 1 (a failure with no status of its own)"
                + " outranks every other (docs/exit-status.md)."
        }
        return text
    }

    /// docs/exit-status.md as `ExitStatus` says it (`tools/exit-status-doc` writes it).
    static var markdown: String {
        var text = """
            # jcap's exit statuses

            Generated from `Sources/jcap/ExitStatus+Documentation.swift` (`tools/exit-status-doc`
            writes it; `swift test --filter ExitStatusTests` fails when it is out of date).

            Every kind of failure has its own status, so scripts can tell them apart. When several
            things went wrong in one run (take after take with `--transport`, `--trigger` or
            `--takes`, an interactive session, an overdub's playback along with its take), jcap ends
            with the worst, in this order, mildest first:
            \(severityOrder.map { String($0.rawValue) }.joined(separator: " < ")). A take stopped
            before its start (6) counts only when nothing else went wrong; a failure jcap has no
            status for (1) outranks every other.

            | status | meaning | \(Command.allCases.map(\.rawValue).joined(separator: " | ")) |
            | ---: | --- |\(String(repeating: " :---: |", count: Command.allCases.count))

            """
        for status in allCases {
            let marks = Command.allCases.map { statuses(of: $0).contains(status) ? "yes" : "" }
            text += "| \(status.rawValue) | \(status.meaning) | \(marks.joined(separator: " | ")) |\n"
        }
        return text
    }
}
