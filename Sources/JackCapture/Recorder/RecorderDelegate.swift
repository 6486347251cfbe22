/// What a `Recorder` tells its delegate, in order, on the recorder's event thread. Every method
/// has an empty default: implement the ones you need.
public protocol RecorderDelegate: AnyObject, Sendable {
    /// The take ended: stopped, reached its length, or cut short. `successfully` is true when
    /// every frame asked for is in the file; `recorder.finalReport` says what happened otherwise
    /// (frames lost to overruns, the server gone, a sample-rate change, a failed disk).
    func recorderDidFinishRecording(_ recorder: Recorder, successfully: Bool)
    /// Writing the file failed (a full disk, an I/O error): the take ends, and what was written
    /// before is in the file.
    func recorderEncodeErrorDidOccur(_ recorder: Recorder, error: CaptureError)
    /// Something outside the recorder cut into the take: a source went away, the server shut
    /// down, or its sample rate changed.
    func recorderBeginInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption)
    /// An interruption is over: a disconnected channel has a source again.
    func recorderEndInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption)
    /// Every event of the take, with its frame: start, pause, resume, stop, overrun, xrun,
    /// connection, period change.
    func recorder(_ recorder: Recorder, didReceive event: CaptureEvent)
}

extension RecorderDelegate {
    public func recorderDidFinishRecording(_ recorder: Recorder, successfully: Bool) {}
    public func recorderEncodeErrorDidOccur(_ recorder: Recorder, error: CaptureError) {}
    public func recorderBeginInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption) {}
    public func recorderEndInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption) {}
    public func recorder(_ recorder: Recorder, didReceive event: CaptureEvent) {}
}

/// JACK's versions of an audio session's interruptions.
public enum RecorderInterruption: Equatable, Sendable {
    /// A channel's source was disconnected or its client quit: the channel records silence until
    /// a source is connected again (which ends the interruption).
    case sourceDisconnected(channel: Int, source: String)
    /// The server shut down: everything received is in the file; the take is over.
    case serverShutDown
    /// The server's sample rate changed: the take stopped at the change.
    case sampleRateChanged(from: Int, to: Int)
}

/// How a `Recorder` call can fail: misuse, or a `CaptureError` from the server, the ports, the
/// format or the disk. Each has a one-line description naming what is wrong.
public enum RecorderError: Error, Equatable, Sendable {
    case capture(CaptureError)
    /// `Recorder` writes local files only.
    case notAFileURL(String)
    /// `deleteRecording()` while recording or paused: stop first.
    case stillRecording
    /// The recording was deleted: this recorder can do nothing more.
    case deleted
    /// A frame-exact or timed start asked of a recorder already recording.
    case alreadyRecording
    /// The number of assigned ports does not match the channel count.
    case channelAssignmentCount(expected: Int, assigned: Int)
    /// Channel assignments change only before recording starts.
    case channelAssignmentsWhileRecording
    /// `deleteRecording()` found no file.
    case nothingToDelete(String)
    case deleteFailed(String, reason: String)
}

extension RecorderError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .capture(let error): error.description
        case .notAFileURL(let url): "'\(url)' is not a file URL: a recorder writes local files"
        case .stillRecording: "cannot delete the recording while recording: stop() first"
        case .deleted: "the recording was deleted: make a new Recorder to record again"
        case .alreadyRecording: "already recording: stop() first, or pause() and record() to resume"
        case .channelAssignmentCount(let expected, let assigned):
            "\(assigned) channel assignments for \(expected) channels: assign one JACK port per channel"
        case .channelAssignmentsWhileRecording: "channel assignments change only before recording starts"
        case .nothingToDelete(let path): "nothing to delete: '\(path)' does not exist"
        case .deleteFailed(let path, let reason): "cannot delete '\(path)': \(reason)"
        }
    }
}
