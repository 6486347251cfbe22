/// Everything that defines one take.
package struct CaptureConfiguration: Sendable {
    /// The JACK client name asked for; the server makes it unique if taken.
    package var clientName = "jcap"
    /// The JACK server (jackd -n), or nil for the default.
    package var serverName: String?
    package var sources: SourceSelection = .default
    /// Connect each input port to its source; without, the ports wait to be patched by hand.
    package var connectsPorts = true
    /// The input ports' short names, one per source (a session's track names); nil: `in_1`, `in_2`...
    package var portNames: [String]?
    /// The output file, or nil for the next `take-NNN.<ext>` in `takeDirectory`.
    package var outputPath: String?
    package var takeDirectory = "."
    package var takeExtension = "wav"
    /// The file's format, rate and encoder settings, and whether it may replace an existing file.
    package var settings = RecordingSettings()
    /// nil: as soon as jcap is ready.
    package var start: StartTime?
    /// nil: until stopped.
    package var duration: CaptureDuration?
    /// Each take starts on the frame the JACK transport starts rolling and ends on the frame it
    /// stops; `start` must then be nil.
    package var followsTransport = false
    /// Each take starts on the first sample of any channel at or above this level, in dBFS
    ///; `start` must then be nil.
    package var triggerLevel: Double?
    /// A level-triggered take ends after this long below the level.
    package var triggerStop: CaptureDuration?
    /// A take started by a trigger or the transport begins this much earlier: the
    /// ring keeps the last `preRoll` of every channel while the take waits.
    package var preRoll: CaptureDuration?
    /// Align each take to its sources' capture latency (`LatencyAlignment`).
    package var alignsToCaptureLatency = false
    /// Follow each take on the master's clock, from the timecode (`jcap timecode` on a NetJACK2
    /// master) this output port carries: `--at @F` names the master's frame F, the take's start
    /// on it is reported, and any jump of it is reported at its position. nil: the server's clock.
    package var masterClockPort: String?
    /// A new file on each wall-clock boundary of this interval; nil: one file.
    package var split: SplitInterval?
    /// Seconds of audio the ring holds: how long the disk may stall before frames are lost.
    package var bufferSeconds: Double = 4

    package init() {}

    /// The file the next take goes to: `outputPath`, else the next `take-NNN.<ext>` in
    /// `takeDirectory` (never a number already used there).
    ///
    /// - Throws: `.outputUnwritable` when the folder's take names are used up
    ///   (`TakeNaming.highestNumber`).
    package func nextOutputPath() throws(CaptureError) -> String {
        if let outputPath { return outputPath }
        guard let name = TakeNaming.nextFileName(existing: TakeNaming.fileNames(inDirectory: takeDirectory),
                                                 fileExtension: takeExtension) else {
            throw .outputUnwritable(takeDirectory, reason: "no take number left: a take-NNN name there is at or above the "
                + "highest, \(TakeNaming.highestNumber) (use -o)")
        }
        return takeDirectory == "." ? name : (takeDirectory.hasSuffix("/") ? takeDirectory + name : takeDirectory + "/" + name)
    }
}

/// A file of a take: where it goes, and which of the client's channels (0-based) it holds, in
/// the file's channel order.
package struct TakeFileSpec: Equatable, Sendable {
    package var path: String
    package var channels: [Int]

    package init(path: String, channels: [Int]) {
        self.path = path
        self.channels = channels
    }
}

/// The files a take writes: one file of every channel, one per track, or any grouping, and
/// optionally a split into back-to-back segments, each with files of its own: of a fixed length,
/// or from one wall-clock boundary to the next.
package struct TakeLayout: Sendable {
    /// The (first segment's) files, created before the take is armed.
    package var files: [TakeFileSpec]
    /// With `filesForSegment`: the take's files change every this many frames, on that exact frame.
    package var segmentLength: Int64?
    /// With `filesForSegment`: the take's files change on each wall-clock boundary of this
    /// interval, on the first frame at or after it (`SplitInterval` states the rule).
    package var split: SplitInterval?
    /// The files of the segment that begins at `start` (index 1, 2, ...; a split's boundary and its
    /// wall-clock moment), created on the writer thread when its first frame comes; they must
    /// hold the same channels as the first segment's.
    package var filesForSegment: (@Sendable (_ start: TakeSegmentStart) -> [TakeFileSpec])?
    /// Runs on the writer thread just before a segment's first frame is written, with its files
    /// and the JACK frame time of that frame: where metadata that must precede the audio is added
    /// (BWF `bext`, iXML, tags). A thrown error fails the take like a write error.
    package var beforeFirstWrite: (@Sendable (_ segment: Int, _ files: [SoundFile], _ firstFrameTime: UInt32?) throws(CaptureError) -> Void)?
    /// Runs on the writer thread when a segment's files are closed.
    package var onSegmentFinished: (@Sendable (TakeSegment) -> Void)?

    package init(files: [TakeFileSpec], segmentLength: Int64? = nil, split: SplitInterval? = nil,
                filesForSegment: (@Sendable (_ start: TakeSegmentStart) -> [TakeFileSpec])? = nil) {
        self.files = files
        self.segmentLength = segmentLength
        self.split = split
        self.filesForSegment = filesForSegment
    }
}
