/// Why a player could not open its files, prepare or start.
public enum PlayerError: Error, Equatable, Sendable {
    /// The file is missing, unreadable, or a directory: `reason` says which (strerror).
    case unreadableFile(String, reason: String)
    /// libsndfile cannot read the file's format (its message).
    case unreadableFormat(String, reason: String)
    /// Files played together are at different sample rates (a file at another rate than the
    /// server's is resampled; files together must share one, as their frames are one position).
    case sampleRateMismatch(String, fileRate: Int, firstPath: String, firstRate: Int)
    /// No file given.
    case noFiles
    /// The file could not be decoded past file frame `frame` (libsndfile's message, or the
    /// converter's): playing it ended there.
    case decodeFailed(String, frame: Int64, reason: String)
    /// The server, a port, a connection, a start time, a channel list or a pattern (the same
    /// failures as recording's).
    case capture(CaptureError)
}

extension PlayerError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read '\(path)': \(reason)"
        case .unreadableFormat(let path, let reason): "'\(path)' is not a sound file libsndfile can read: \(reason)"
        case .sampleRateMismatch(let path, let fileRate, let firstPath, let firstRate):
            "'\(path)' is at \(fileRate) Hz and '\(firstPath)' at \(firstRate) Hz: files played together must share a sample rate"
        case .noFiles: "no file to play"
        case .decodeFailed(let path, let frame, let reason): "'\(path)' cannot be decoded past file frame \(frame): \(reason)"
        case .capture(let error): "\(error)"
        }
    }
}

/// Where a player's output ports are connected when it is prepared.
public enum PlayerOutputs: Equatable, Sendable {
    /// To the server's physical playback ports in order (`system:playback_1` first): output `i`
    /// to the `i`th, or, given channels (1-based), to those playback ports in the order given.
    /// Outputs beyond the ports there are stay unconnected.
    case physical(channels: [Int]?)
    /// To the input ports matching these names or globs, in order (each pattern's matches in the
    /// server's order).
    case ports([String])
    /// Not connected: patch by hand.
    case none

    public static let `default` = PlayerOutputs.physical(channels: nil)
}

/// An underrun: the reader had not supplied the frames in time, so `frames` frames of silence
/// went out from JACK frame `jackFrame`, where file frame `position` was due; that frame played
/// after the silence (nothing is repeated or skipped).
public struct PlaybackUnderrun: Equatable, Sendable {
    public let position: Int64
    public let jackFrame: UInt32
    public let frames: Int
}

/// Told what a player did. Called on the player's reader thread.
public protocol PlayerDelegate: AnyObject, Sendable {
    /// Playing reached the end of the last loop (`successfully`), or stopped because the server
    /// went away or a file could not be read further (not `successfully`).
    func playerDidFinishPlaying(_ player: Player, successfully: Bool)
    /// An underrun ended (`Player.underruns` keeps them all).
    func player(_ player: Player, didUnderrun underrun: PlaybackUnderrun)
    /// A file could not be decoded further (AVAudioPlayer's `audioPlayerDecodeErrorDidOccur`):
    /// `.decodeFailed`, with the file frame it stopped at. Its ports play silence from there;
    /// `playerDidFinishPlaying(successfully: false)` follows at the end.
    func playerDecodeErrorDidOccur(_ player: Player, error: PlayerError)
    /// Something outside interrupted playing: the server went away (playing has ended), or an
    /// output port lost its last connection (playing goes on, unheard there, until it is patched
    /// again or stopped).
    func player(_ player: Player, wasInterrupted interruption: PlayerInterruption)
}

extension PlayerDelegate {
    public func player(_ player: Player, didUnderrun underrun: PlaybackUnderrun) {}
    public func playerDecodeErrorDidOccur(_ player: Player, error: PlayerError) {}
    public func player(_ player: Player, wasInterrupted interruption: PlayerInterruption) {}
}

/// What interrupted a player (`PlayerDelegate.player(_:wasInterrupted:)`).
public enum PlayerInterruption: Equatable, Sendable {
    /// The JACK server shut down or threw the client out.
    case serverShutDown
    /// The output port (its full name) was connected and now has no connection.
    case outputDisconnected(String)
    /// The server changed its sample rate (to this one): the rings were filled for the old one,
    /// so what plays on is at the wrong speed and pitch until the player is prepared again.
    case sampleRateChanged(Int)
    /// The server changed its period (to this many frames): playing goes on.
    case bufferSizeChanged(Int)
}
