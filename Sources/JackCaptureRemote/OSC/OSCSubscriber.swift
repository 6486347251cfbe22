/// A peer that asked for meters and state changes (`/jcap/subscribe`).
struct OSCSubscriber {
    var address: OSCAddress
    /// Meter messages a second, for each track.
    var rate: Double
    var nextMeters: ContinuousClock.Instant
    /// Not yet sent the whole state: it gets it on the next poll, then only changes.
    var isNew = true
}
