import JackCapture

/// Every sample of every file of a take checked against what jcap reported of it (`TakeAccount`):
/// each must be the test signal at its true position, or silence inside a reported lost span or
/// where its channel was reported unpatched, or lie inside a reported late-copy or
/// placement-uncertain period; and every reported lost span must be silent in the files (no
/// silence reported where the signal was). A take jcap reported nothing of is then checked
/// exactly as strictly as "every sample is the signal in place".
public struct TakeVerification: Equatable, Sendable, CustomStringConvertible {
    /// A sample neither in place nor inside anything jcap reported.
    public struct MisplacedSample: Equatable, Sendable {
        public var path: String
        /// Frame index in the file.
        public var frame: Int64
        public var position: Int64
        public var channel: Int
        /// The JACK frame time (modulo 2^22) whose signal belonged there.
        public var expected: Int
        /// The frame time the sample decodes to on its channel; nil for silence or no signal.
        public var found: Int?
        /// The sample is exactly 0: silence, not a sample of some other signal.
        public var isSilence = false
    }

    /// A reported lost span that holds something other than silence.
    public struct FalseSpan: Equatable, Sendable {
        public var path: String
        public var span: LostSpan
        /// The first take position in it that is not silent, and how many samples are not.
        public var firstSoundingPosition: Int64
        public var soundingSamples: Int64
    }

    public var files = 0
    public var checkedSamples: Int64 = 0
    /// Samples that were silence inside reported lost spans or unpatched spans.
    public var silentReportedSamples: Int64 = 0
    /// Samples inside reported late-copy or uncertain periods (anything goes there).
    public var excusedSamples: Int64 = 0
    /// Of those, the samples that are not the signal at their true position: how often a period
    /// reported as a late copy or a guess truly was one.
    public var excusedMisplacedSamples: Int64 = 0
    public var misplacedSamples: Int64 = 0
    /// Of those, the samples that are exactly 0: where a file holds silence nobody reported (a
    /// NetJACK2 slave's driver fills what never arrived with it), rather than audio out of place.
    public var silentMisplacedSamples: Int64 = 0
    public var firstMisplaced: [MisplacedSample] = []
    public var falseSpans: [FalseSpan] = []
    /// Files that could not be read, had the wrong channel count or another length than reported.
    public var fileProblems: [String] = []
    public var account: TakeAccount?

    /// Every sample is accounted for and every reported span is real.
    public var isAccountedFor: Bool { misplacedSamples == 0 && falseSpans.isEmpty && fileProblems.isEmpty && files > 0 }

    public var description: String {
        var text = "\(checkedSamples) samples in \(files) file\(files == 1 ? "" : "s"): \(misplacedSamples) unreported misplaced "
            + "(\(silentMisplacedSamples) of them silence), "
            + "\(falseSpans.count) falsely reported lost span\(falseSpans.count == 1 ? "" : "s"), "
            + "\(silentReportedSamples) silent in reported lost spans, \(excusedSamples) in reported late/uncertain periods "
            + "(\(excusedMisplacedSamples) of them not in place)"
        if !firstMisplaced.isEmpty {
            text += "; first misplaced: " + firstMisplaced.prefix(4).map {
                "\($0.path) channel \($0.channel + 1) frame \($0.frame) (take position \($0.position)): expected frame time "
                    + "\($0.expected), found \($0.found.map(String.init) ?? ($0.isSilence ? "silence" : "no signal"))"
            }.joined(separator: "; ")
        }
        if !falseSpans.isEmpty {
            text += "; false spans: " + falseSpans.prefix(4).map {
                "\($0.path) \($0.span): \($0.soundingSamples) samples not silent, first at \($0.firstSoundingPosition)"
            }.joined(separator: "; ")
        }
        if !fileProblems.isEmpty { text += "; " + fileProblems.joined(separator: "; ") }
        if let account { text += " [\(account)]" }
        return text
    }

    /// Checks every file of `account` (paths as given).
    public static func verify(_ account: TakeAccount) -> TakeVerification {
        var result = TakeVerification()
        result.account = account
        for file in account.files { result.verify(file, of: account) }
        return result
    }

    private mutating func verify(_ file: TakeAccount.File, of account: TakeAccount) {
        files += 1
        let sound: SoundFile
        do { sound = try SoundFile.open(readingFrom: file.path) } catch {
            fileProblems.append("\(file.path): cannot read: \(error)")
            return
        }
        let channels = sound.channels
        guard channels == file.signalChannels.count, channels == file.shifts.count else {
            fileProblems.append("\(file.path): \(channels) channels, the account names \(file.signalChannels.count)")
            return
        }
        var lost = SpanCursor(account.lostSpans)
        var excused = SpanCursor(account.lateCopySpans + account.uncertainSpans)
        var spanFindings: [Int64: FalseSpan] = [:]
        let chunk = 16_384
        var buffer = [Float](repeating: 0, count: chunk * channels)
        var frame: Int64 = 0
        while true {
            let read = buffer.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: chunk) }
            if read <= 0 { break }
            for local in 0..<read {
                let position = file.firstPosition + frame + Int64(local)
                let base = local * channels
                checkedSamples += Int64(channels)
                let time = account.frameTime(atPosition: position)
                if excused.contains(position) {
                    excusedSamples += Int64(channels)
                    for channel in 0..<channels where buffer[base + channel]
                        != TestSignal.sample(frameTime: FrameTime.advance(time, by: file.shifts[channel]), channel: file.signalChannels[channel]) {
                        excusedMisplacedSamples += 1
                    }
                    continue
                }
                if let span = lost.containing(position) {
                    for channel in 0..<channels where buffer[base + channel] != 0 {
                        var finding = spanFindings[span.position]
                            ?? FalseSpan(path: file.path, span: span, firstSoundingPosition: position, soundingSamples: 0)
                        finding.soundingSamples += 1
                        spanFindings[span.position] = finding
                    }
                    silentReportedSamples += Int64((0..<channels).filter { buffer[base + $0] == 0 }.count)
                    continue
                }
                for channel in 0..<channels {
                    let due = FrameTime.advance(time, by: file.shifts[channel])
                    let sample = buffer[base + channel]
                    if sample == TestSignal.sample(frameTime: due, channel: file.signalChannels[channel]) { continue }
                    // Unpatched, jcap records silence (a disconnection "near" a frame may land a
                    // few periods after it, so the signal in place passes too).
                    if sample == 0, file.unpatchedSpans[channel].contains(where: { $0.position <= position && position - $0.position < $0.frames }) {
                        silentReportedSamples += 1
                        continue
                    }
                    misplacedSamples += 1
                    if sample == 0 { silentMisplacedSamples += 1 }
                    if firstMisplaced.count < 8 {
                        firstMisplaced.append(MisplacedSample(
                            path: file.path, frame: frame + Int64(local), position: position, channel: channel,
                            expected: Int(due) % TestSignal.timeModulus,
                            found: sample == 0 ? nil : TestSignal.frameTime(decoding: sample, channel: file.signalChannels[channel]),
                            isSilence: sample == 0))
                    }
                }
            }
            frame += Int64(read)
        }
        falseSpans += spanFindings.values.sorted { $0.span.position < $1.span.position }
        if let expected = file.frames, expected != frame {
            fileProblems.append("\(file.path): \(frame) frames, reported \(expected)")
        }
    }
}

/// Take positions inside a list of spans, asked in increasing order: the spans merged where they
/// overlap, and a cursor that only moves forward.
struct SpanCursor {
    private let spans: [LostSpan]
    private var index = 0

    init(_ list: [LostSpan]) {
        var merged: [LostSpan] = []
        for span in list.filter({ $0.frames > 0 }).sorted(by: { $0.position < $1.position }) {
            if let last = merged.last, span.position <= last.position + last.frames {
                merged[merged.count - 1].frames = max(last.position + last.frames, span.position + span.frames) - last.position
            } else {
                merged.append(span)
            }
        }
        spans = merged
    }

    mutating func containing(_ position: Int64) -> LostSpan? {
        while index < spans.count, spans[index].position + spans[index].frames <= position { index += 1 }
        guard index < spans.count, spans[index].position <= position else { return nil }
        return spans[index]
    }

    mutating func contains(_ position: Int64) -> Bool { containing(position) != nil }
}
