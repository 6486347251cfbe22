import Foundation

/// Why a studio session could not open, or a take could not be recorded.
public enum StudioSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The session file, or what it names, is wrong (a channel the server lacks, a port that
    /// matches nothing): located at its line and key.
    case sessionFile(SessionFileError)
    /// The server runs at another rate than the session's `sample_rate`.
    case sampleRateMismatch(SessionFileError)
    /// The server, the ports, the files or the take.
    case capture(CaptureError)
    /// The take log (or the session folder's lock).
    case takeLog(TakeLogError)
    /// A take is being recorded; it must finish first.
    case takeInProgress
    /// Several takes back to back need a length for each take.
    case takesNeedLength
    /// A number of takes below 1 or above `SessionTake.mostTakesBackToBack`.
    case badTakeCount(Int)
    /// The next take's number (or the last of `count` back to back) would be above
    /// `SessionTake.highestNumber`: a file or log record in `folder` has a number that high.
    case takeNumbersUsedUp(next: Int, count: Int, folder: String)
    /// A split take with a start that waits (the transport, a level, a cue): not supported.
    case splitNeedsScheduledStart
    /// A split take with several takes back to back: each segment of a split is a take already.
    case splitWithSeveralTakes(Int)
    /// An overdub of take `take` in a session that does not align to capture latency: the new
    /// take would not line up with the one played.
    case overdubNeedsLatencyAlignment(take: Int)
    /// Playing a take back (an overdub): a file, the player's client or its outputs.
    case playback(PlayerError)
    /// The take to overdub cannot be played in line with a new take (discarded or deleted, or at
    /// another sample rate than the server's).
    case overdub(String)
    /// `setArmed` named a track the session does not have; `known` are its tracks, in file order.
    case unknownTrack(String, known: [String])
    /// Every track is disarmed: a take would record nothing.
    case noArmedTrack
    /// The session folder's disk has less free space than a take needs to start (the ring's worth
    /// and room for headers: `StudioSession.diskReserveBytes`).
    case diskNearlyFull(folder: String, freeBytes: Int64, neededBytes: Int64)

    public var description: String {
        switch self {
        case .sessionFile(let error), .sampleRateMismatch(let error): error.description
        case .capture(let error): error.description
        case .takeLog(let error): error.description
        case .takeInProgress: "a take is being recorded; stop it first"
        case .takesNeedLength: "several takes back to back need a length for each"
        case .badTakeCount(let count):
            "bad number of takes \(count): use \(count < 1 ? "1 or more" : "at most \(SessionTake.mostTakesBackToBack)")"
        case .takeNumbersUsedUp(let next, let count, let folder):
            "no take number left in \(folder): the next take would be \(count == 1 ? "" : "the first of \(count), ")take \(next), "
                + "above the highest, \(SessionTake.highestNumber) (a take file or log record there has a number that high)"
        case .splitNeedsScheduledStart: "a split take cannot wait for the transport, a trigger level or a cue (not supported together)"
        case .splitWithSeveralTakes(let count): "a split take is 1 take, not \(count) (each segment of a split is a take)"
        case .overdubNeedsLatencyAlignment(let take):
            "overdub of take \(take): the session must align to capture latency (align_latency = true)"
        case .playback(let error): error.description
        case .overdub(let reason): "overdub: \(reason)"
        case .unknownTrack(let name, let known):
            "no track '\(name)' in the session (its tracks: \(known.map { "'\($0)'" }.joined(separator: ", ")))"
        case .noArmedTrack: "no track is armed: arm at least one before recording"
        case .diskNearlyFull(let folder, let free, let needed):
            "the disk holding '\(folder)' is nearly full: \(ByteCountText.describe(free)) free, and a take needs "
                + "\(ByteCountText.describe(needed)) (what the buffer holds, and room for headers); nothing recorded"
        }
    }
}
