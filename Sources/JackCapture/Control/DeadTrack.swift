/// A track that records nothing worth having: its source unpatched, or silent (below `level`
/// for `seconds`) while other tracks carry signal. The core marks it in `ControlState` between
/// takes and while recording; `jcap takes` flags a take whose track peaked below `level` while
/// another did not.
public enum DeadTrack: Equatable, Sendable {
    /// No port is connected to the track's input.
    case unpatched
    /// Below `level` for `seconds` while another track is above it.
    case silent

    /// dBFS: the noise floor of any real source (a converter's, a microphone's) is above it.
    public static let level: Float = -90
    public static let seconds = 2.0
}
