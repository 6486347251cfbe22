import JackCapture
import JackCaptureRemote

/// jcap's exit statuses: one per kind of failure, so scripts can tell them apart.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    case failure = 1
    /// The take is complete and aligned, but frames were lost (written as silence).
    case lostFrames = 3
    /// Writing a file failed, mid-take or at its start (a full disk); what was written is readable.
    case writeFailed = 4
    /// The JACK server went away mid-take; what was received is in the file.
    case serverShutDown = 5
    /// Stopped before the scheduled start: nothing was recorded.
    case cancelled = 6
    /// The JACK server's sample rate changed mid-take: the take stopped there; the file is valid.
    case sampleRateChanged = 7
    /// A session's take stopped, or could not start, because the disk was (nearly) full; every file is finalized.
    case diskFull = 8
    /// No frame was lost, but callbacks ran late several periods in a row and some periods may
    /// not be at their true position; each such span is reported.
    case placementUncertain = 9
    case noServer = 10
    /// An unknown port or channel, or a bad channel list.
    case unknownSource = 11
    /// A start time or duration that does not parse.
    case badTime = 12
    case startInPast = 13
    case outputUnwritable = 14
    case outputExists = 15
    /// An unknown extension or format, or a format, bit depth, byte order, encoder setting or
    /// sample rate the file cannot have (or the converter cannot produce), or metadata it cannot hold.
    case unsupportedFormat = 16
    case tooManyChannels = 17
    /// The server refused a port, a connection or the activation.
    case jackRefused = 18
    /// A session file that is wrong (or names a source the server lacks), at its line and key.
    case badSessionFile = 20
    /// The server runs at another rate than the session's `sample_rate`.
    case sessionSampleRateMismatch = 21
    /// The take log could not be read or written, another jcap has the session folder open, or the
    /// folder's take numbers are used up (a file or log record numbered above 999,999).
    case takeLogFailed = 22
    /// A take is being recorded (stop it first), or a take number the log does not have.
    case noSuchTake = 23
    /// `jcap play`: a file that is missing, unreadable or not a regular file. (One libsndfile
    /// cannot decode, or files played together at different sample rates, is `unsupportedFormat`.)
    case inputUnreadable = 24
    /// `jcap play`: a file stopped decoding partway (a damaged file); what came before it played.
    case decodeFailed = 25
    /// `jcap session --remote`: the browser remote could not listen (the port taken, an address
    /// not this machine's) or its page is missing.
    case remoteFailed = 26
    /// `jcap session --osc`: the UDP port is taken (or cannot be listened on).
    case oscUnavailable = 27
    /// Under a session manager (`NSM_URL`): it refused jcap's announce or did not answer it.
    case sessionManagerFailed = 28
    /// `--io direct` where a file cannot be written around the page cache (its file system refuses
    /// O_DIRECT, or its encoding is compressed).
    case directIORefused = 29
    /// `--master-clock`: the port carries no master timecode that decodes (`jcap timecode` not
    /// running on the master, not patched, or the link not carrying float samples).
    case noMasterTimecode = 30
    /// A bad flag, or a flag's value that does not parse (swift-argument-parser's EX_USAGE) or is
    /// out of its range (`jcap play --volume 1.5`, `--rate 3`), or a `--buffer` longer than this
    /// machine can hold.
    case usage = 64

    /// How bad a status is when several things went wrong in one run (takes one after another, an
    /// overdub's playback along with its take): the run ends with the worst. Success is the least,
    /// then `cancelled` (a take that never started: nothing went wrong with what was recorded),
    /// then every failure by its number (frames lost, 3, is the mildest: the take is complete),
    /// and `failure` above all: something went wrong that jcap has no status for.
    public var severity: Int {
        switch self {
        case .success: 0
        case .cancelled: 1
        case .failure: Int(Int32.max)
        default: 2 + Int(rawValue)
        }
    }

    /// The worst of `statuses` by `severity`, or success when there are none.
    public static func worst(_ statuses: some Sequence<ExitStatus>) -> ExitStatus {
        statuses.reduce(.success) { $1.severity > $0.severity ? $1 : $0 }
    }

    /// The worst of two statuses.
    public static func worst(_ first: ExitStatus, _ second: ExitStatus) -> ExitStatus {
        worst([first, second])
    }

    public init(for error: CaptureError) {
        switch error {
        case .jack(.noServer): self = .noServer
        case .jack: self = .jackRefused
        case .noSuchChannel, .noPortMatches, .noSuchPlaybackChannel, .noInputPortMatches, .badChannelList: self = .unknownSource
        case .badTime, .badDuration: self = .badTime
        case .startInPast: self = .startInPast
        case .outputExists: self = .outputExists
        case .outputUnwritable: self = .outputUnwritable
        case .directIORefused: self = .directIORefused
        case .unsupportedExtension, .format, .sampleRateConversion, .metadataRefused: self = .unsupportedFormat
        case .badTriggerLevel, .triggerLevelOutOfRange, .bufferTooLarge, .badBufferLength, .transportOnNetJackSlave: self = .usage
        case .alreadyStarted, .clientClosed, .metadataUnreadable: self = .failure
        case .tooManyChannels: self = .tooManyChannels
        case .writeFailed: self = .writeFailed
        case .noMasterTimecode: self = .noMasterTimecode
        }
    }

    public init(for error: StudioSessionError) {
        switch error {
        case .sessionFile: self = .badSessionFile
        case .sampleRateMismatch: self = .sessionSampleRateMismatch
        case .capture(let error): self.init(for: error)
        case .takeLog(.noSuchTake): self = .noSuchTake
        case .takeLog, .takeNumbersUsedUp: self = .takeLogFailed
        case .takeInProgress: self = .noSuchTake
        case .takesNeedLength, .badTakeCount, .splitNeedsScheduledStart, .splitWithSeveralTakes,
             .overdubNeedsLatencyAlignment: self = .usage
        case .playback(let error): self.init(for: error)
        case .overdub: self = .noSuchTake
        case .unknownTrack: self = .unknownSource
        case .noArmedTrack: self = .badSessionFile
        case .diskNearlyFull: self = .diskFull
        }
    }

    public init(for error: PlayerError) {
        switch error {
        case .unreadableFile: self = .inputUnreadable
        case .unreadableFormat, .sampleRateMismatch: self = .unsupportedFormat
        case .noFiles: self = .usage
        case .decodeFailed: self = .decodeFailed
        case .capture(let error): self.init(for: error)
        }
    }

    init(for error: CommandLineError) {
        switch error {
        case .badOption: self = .usage
        case .refusedValue(_, _, let error): self.init(for: error)
        }
    }

    /// Any error jcap reports: the library's by their kind, jcap's own flags' as usage (64).
    public init(for error: any Error) {
        switch error {
        case let error as CommandLineError: self.init(for: error)
        case let error as CaptureError: self.init(for: error)
        case let error as StudioSessionError: self.init(for: error)
        case let error as PlayerError: self.init(for: error)
        case let error as JackError: self.init(for: CaptureError.jack(error))
        case is WebRemoteError: self = .remoteFailed
        case is OSCError: self = .oscUnavailable
        default: self = .failure
        }
    }

    /// A session take's status in the log, as jcap's exit status.
    public init(for status: TakeStatus) {
        switch status {
        case .complete, .recording, .discarded, .deleted: self = .success
        case .framesLost: self = .lostFrames
        case .placementUncertain: self = .placementUncertain
        case .interrupted: self = .sampleRateChanged
        case .serverShutdown: self = .serverShutDown
        case .diskFull: self = .diskFull
        case .writeFailed: self = .writeFailed
        }
    }

    public init(for outcome: TakeReport.Outcome) {
        switch outcome {
        case .complete: self = .success
        case .lostFrames: self = .lostFrames
        case .placementUncertain: self = .placementUncertain
        case .cancelled: self = .cancelled
        case .missedStart: self = .startInPast
        case .serverShutDown: self = .serverShutDown
        case .writeFailed: self = .writeFailed
        case .sampleRateChanged: self = .sampleRateChanged
        }
    }
}
