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
