/// How a `StudioSession` under a `ControlCore` records.
public enum SessionPlan: Sendable {
    /// Commands start and stop takes until `quit`; with the session's pre-roll, each take waits
    /// cued for `record`.
    case interactive
    /// One take, or `takes` back to back, or a new take on each `split` boundary, then the end.
    /// With an overdub: played from `overdubStart` (a JACK frame; nil, the overdub's lead from now).
    case unattended(start: StartTime?, length: CaptureDuration?, takes: Int, split: SplitInterval?, overdubStart: UInt32?)
    /// Take after take, each on a roll of the transport (`level` nil) or on sound at `level` dBFS,
    /// until `quit`.
    case eachTrigger(level: Double?, length: CaptureDuration?)
}
