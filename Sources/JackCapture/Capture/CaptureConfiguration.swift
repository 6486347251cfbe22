/// Everything that defines one take.
public struct CaptureConfiguration: Sendable {
    /// The JACK client name asked for; the server makes it unique if taken.
    public var clientName = "jcap"
    /// The JACK server (jackd -n), or nil for the default.
    public var serverName: String?
    public var sources: SourceSelection = .default
    /// Connect each input port to its source; without, the ports wait to be patched by hand.
    public var connectsPorts = true
    /// The output file, or nil for the next `take-NNN.<ext>` in `takeDirectory`.
    public var outputPath: String?
    public var takeDirectory = "."
    public var takeExtension = "wav"
    public var overwrite = false
    /// nil: 24-bit for PCM containers.
    public var bitDepth: BitDepth?
    /// nil: as soon as jcap is ready.
    public var start: StartTime?
    /// nil: until stopped.
    public var duration: CaptureDuration?
    /// Seconds of audio the ring holds: how long the disk may stall before frames are lost.
    public var bufferSeconds: Double = 4

    public init() {}
}
