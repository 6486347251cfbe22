import JackCapture

/// What jcap said of a take recorded from the test signal, as a plain value: enough to know
/// where every sample of every file belongs and which stretches it owned up to. Built from a
/// library `TakeReport`, a session's take log entry or `--meter json`'s summary by small adapters,
/// and checked against the files by `TakeVerification`.
public struct TakeAccount: Equatable, Sendable, CustomStringConvertible {
    /// One file of the take.
    public struct File: Equatable, Sendable {
        public var path: String
        /// The test-signal channel (0-based) each file channel recorded.
        public var signalChannels: [Int]
        /// Frames each file channel is shifted by against JACK's clock: a latency-aligned take's
        /// capture latency per channel (its file data at take position p is the signal at JACK
        /// frame start + p + shift); 0 otherwise.
        public var shifts: [Int]
        /// Take position of the file's first frame (a later segment of a split take: its start).
        public var firstPosition: Int64
        /// Frames jcap said the file holds, when it said so.
        public var frames: Int64?
        /// Per file channel, the take positions jcap reported it unpatched (from a disconnection
        /// to the next connection, or on): jcap records silence there.
        public var unpatchedSpans: [[LostSpan]]

        public init(path: String, signalChannels: [Int], shifts: [Int]? = nil, firstPosition: Int64 = 0, frames: Int64? = nil,
                    unpatchedSpans: [[LostSpan]]? = nil) {
            self.path = path
            self.signalChannels = signalChannels
            self.shifts = shifts ?? Array(repeating: 0, count: signalChannels.count)
            self.firstPosition = firstPosition
            self.frames = frames
            self.unpatchedSpans = unpatchedSpans ?? Array(repeating: [], count: signalChannels.count)
        }
    }

    /// A pause: at take position `position` JACK's clock moves on `skippedFrames` frames that the
    /// take does not hold.
    public struct Pause: Equatable, Sendable {
        public var position: Int64
        public var skippedFrames: Int64

        public init(position: Int64, skippedFrames: Int64) {
            self.position = position
            self.skippedFrames = skippedFrames
        }
    }

    /// JACK frame time of the take's first frame (converter time for an aligned take).
    public var startFrame: UInt32
    public var files: [File]
    public var pauses: [Pause]
    /// Spans jcap wrote as silence because their frames were lost (take positions).
    public var lostSpans: [LostSpan]
    /// Periods copied after JACK began the next one: they may hold the next period's samples.
    public var lateCopySpans: [LostSpan]
    /// Periods whose placement the cycle timeline had to guess.
    public var uncertainSpans: [LostSpan]

    public init(startFrame: UInt32, files: [File], pauses: [Pause] = [], lostSpans: [LostSpan] = [],
                lateCopySpans: [LostSpan] = [], uncertainSpans: [LostSpan] = []) {
        self.startFrame = startFrame
        self.files = files
        self.pauses = pauses.sorted { $0.position < $1.position }
        self.lostSpans = lostSpans
        self.lateCopySpans = lateCopySpans
        self.uncertainSpans = uncertainSpans
    }

    /// True when jcap reported nothing that excuses a sample from being the signal in place.
    public var reportsNoTrouble: Bool { lostSpans.isEmpty && lateCopySpans.isEmpty && uncertainSpans.isEmpty }

    /// The JACK frame time of take position `position`, before any channel shift.
    public func frameTime(atPosition position: Int64) -> UInt32 {
        var skipped: Int64 = 0
        for pause in pauses where pause.position <= position { skipped += pause.skippedFrames }
        return FrameTime.advance(startFrame, by: Int(position + skipped))
    }

    /// The spans in which a channel had no source, from its source at the start and the
    /// connections and disconnections jcap reported (position, other port, connected), in any
    /// order: from each disconnection that left it with no source to the next connection, or on.
    public static func unpatchedSpans(source: String, changes: [(position: Int64, source: String, connected: Bool)]) -> [LostSpan] {
        var sources: Set<String> = [source]
        var spans: [LostSpan] = []
        var unpatchedSince: Int64?
        for change in changes.sorted(by: { $0.position < $1.position }) {
            if change.connected { sources.insert(change.source) } else { sources.remove(change.source) }
            if sources.isEmpty, unpatchedSince == nil {
                unpatchedSince = change.position
            } else if !sources.isEmpty, let since = unpatchedSince {
                spans.append(LostSpan(position: since, frames: change.position - since))
                unpatchedSince = nil
            }
        }
        if let since = unpatchedSince { spans.append(LostSpan(position: since, frames: Int64.max - since)) }
        return spans
    }

    /// The test-signal channel (0-based) a port of
    /// `jcap-testsignal` plays, from its `out_N` name (`sig:out_3`: 2); nil for any other port.
    public static func signalChannel(ofPort name: String) -> Int? {
        guard let range = name.range(of: "out_", options: .backwards), let number = Int(name[range.upperBound...]), number >= 1
        else { return nil }
        return number - 1
    }

    /// The test-signal channel (0-based) a NetJACK2 slave's `system:capture_N` carries when the
    /// master patches the signal's `out_N` to the link's channel N (`system:capture_3`: 2); nil
    /// for any other port.
    public static func signalChannel(ofCapturePort name: String) -> Int? {
        guard let range = name.range(of: ":capture_"), let number = Int(name[range.upperBound...]), number >= 1 else { return nil }
        return number - 1
    }

    public var description: String {
        func spans(_ list: [LostSpan]) -> String { list.isEmpty ? "none" : list.map(\.description).joined(separator: ", ") }
        var text = "take from JACK frame \(startFrame), \(files.count) file\(files.count == 1 ? "" : "s")"
        if !pauses.isEmpty { text += ", pauses: " + pauses.map { "\($0.skippedFrames) frames at \($0.position)" }.joined(separator: ", ") }
        text += "; reported lost: \(spans(lostSpans)); late: \(spans(lateCopySpans)); uncertain: \(spans(uncertainSpans))"
        let unpatched = files.flatMap { file in
            file.unpatchedSpans.enumerated().flatMap { channel, spans in spans.map { "\(file.path) channel \(channel + 1) from \($0.position)" } }
        }
        if !unpatched.isEmpty { text += "; unpatched: " + unpatched.joined(separator: ", ") }
        return text
    }
}
