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
    /// The file's format, rate and encoder settings, and whether it may replace an existing file.
    public var settings = RecordingSettings()
    /// nil: as soon as jcap is ready.
    public var start: StartTime?
    /// nil: until stopped.
    public var duration: CaptureDuration?
    /// Seconds of audio the ring holds: how long the disk may stall before frames are lost.
    public var bufferSeconds: Double = 4

    public init() {}

    /// The file the next take goes to: `outputPath`, else the next `take-NNN.<ext>` in
    /// `takeDirectory` (never a number already used there).
    public func nextOutputPath() -> String {
        if let outputPath { return outputPath }
        let name = TakeNaming.nextFileName(existing: TakeNaming.fileNames(inDirectory: takeDirectory),
                                           fileExtension: takeExtension)
        return takeDirectory == "." ? name : (takeDirectory.hasSuffix("/") ? takeDirectory + name : takeDirectory + "/" + name)
    }
}
