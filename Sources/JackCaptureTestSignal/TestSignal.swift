import JackCapture

/// A signal from which every recorded sample can be checked: the sample that channel `c` carries
/// at JACK frame time `t` encodes both.
///
/// Each sample is an integer `k` in [-2^21, 2^21) divided by 2^23: exact in 32-bit float and in
/// 24- and 32-bit PCM (libsndfile scales by 2^23 - 1 and rounds, which recovers `k` while
/// |k| < 2^22), so a recording can be compared bit for bit. `k` is the frame time, offset by
/// 4,093 frames per channel, modulo 2^22 (87 seconds at 48 kHz): a frame recorded from the wrong
/// channel, a frame missing, repeated or shifted all decode to the wrong time. On a speaker it is
/// a quiet sawtooth, at most -12 dBFS.
public enum TestSignal {
    public static let timeModulus = 1 << 22
    /// Frames of offset per channel: prime, and small enough that channels 0 to 1,023 all differ.
    public static let channelOffset = 4_093

    /// The code of channel `channel` (0-based) at frame time `frameTime`.
    @inlinable
    @_noAllocation @_noLocks
    public static func code(frameTime: UInt32, channel: Int) -> Int {
        let phase = (Int(frameTime) + channel &* channelOffset) & (timeModulus - 1)
        return phase - timeModulus / 2
    }

    /// The sample of channel `channel` (0-based) at frame time `frameTime`.
    @inlinable
    @_noAllocation @_noLocks
    public static func sample(frameTime: UInt32, channel: Int) -> Float {
        Float(code(frameTime: frameTime, channel: channel)) * (1.0 / Float(1 << 23))
    }

    /// A periodic signal ready to play: one period (plus a copy of its start, so a period's worth
    /// of frames never wraps), channel `c` reading it `c × channelOffset` frames ahead. Rendering a
    /// cycle is then one copy per channel, cheap enough for a thousand channels on the process
    /// thread.
    public struct Table: @unchecked Sendable {
        // @unchecked: `samples` is a raw buffer, filled in `init` and only read after, on any thread.
        let samples: UnsafeMutablePointer<Float>
        public let period: Int
        let channelOffset: Int
        static var overlap: Int { @_noAllocation @_noLocks get { 8_192 } }

        public init(period: Int, channelOffset: Int, sample: (Int) -> Float) {
            self.period = period
            self.channelOffset = channelOffset
            samples = .allocate(capacity: period + Self.overlap)
            for index in 0..<period { samples[index] = sample(index) }
            for index in period..<(period + Self.overlap) { samples[index] = samples[index % period] }
        }

        /// The frame-time code: each channel a window onto one sawtooth of 2^22 samples (16 MB).
        public static func code() -> Table {
            Table(period: TestSignal.timeModulus, channelOffset: TestSignal.channelOffset) {
                Float($0 - TestSignal.timeModulus / 2) * (1.0 / Float(1 << 23))
            }
        }

        /// A sine of a whole number of hertz at `level` dBFS (0: peaks at exactly full scale) on
        /// every channel, in phase with JACK's frame time.
        public static func sine(frequency: Int, level: Double, sampleRate: Int) -> Table {
            var a = frequency, b = sampleRate
            while b != 0 { (a, b) = (b, a % b) }
            let period = sampleRate / a
            let amplitude = pow(10, level / 20)
            return Table(period: period, channelOffset: 0) {
                Float(amplitude * sin(2 * Double.pi * Double(frequency) * Double($0) / Double(sampleRate)))
            }
        }

        public static func silence() -> Table { Table(period: 1, channelOffset: 0) { _ in 0 } }

        public func deallocate() { samples.deallocate() }

        /// Fills `frames` samples of channel `channel` (0-based), starting at frame time `start`.
        @_noAllocation @_noLocks
        public func render(into buffer: UnsafeMutablePointer<Float>, frames: Int, start: UInt32, channel: Int) {
            var phase = (Int(start) % period + (channel &* channelOffset) % period) % period
            var done = 0
            while done < frames {
                let chunk = min(frames - done, Self.overlap)
                UnsafeMutableRawPointer(buffer + done).copyMemory(
                    from: UnsafeRawPointer(samples + phase), byteCount: chunk * MemoryLayout<Float>.stride)
                phase = (phase + chunk) % period
                done += chunk
            }
        }
    }

    /// The frame time (modulo 2^22) a sample of `channel` encodes, or nil if it is no sample of
    /// the signal at all.
    public static func frameTime(decoding sample: Float, channel: Int) -> Int? {
        let scaled = sample * Float(1 << 23)
        guard scaled == scaled.rounded(), abs(scaled) <= Float(timeModulus / 2) else { return nil }
        let code = Int(scaled)
        return ((code + timeModulus / 2 - channel * channelOffset) % timeModulus + timeModulus) % timeModulus
    }
}

/// What a recording of the test signal holds, checked sample by sample.
public struct TestSignalReport: Equatable, Sendable, CustomStringConvertible {
    public var frames: Int64 = 0
    public var channels = 0
    /// The frame time (modulo 2^22) the take's first signal frame encodes, reckoned back to the
    /// file's first frame.
    public var firstFrameTime: Int?
    /// Spans of frames silent on every channel (where jcap wrote silence for lost frames).
    public var silentSpans: [LostSpan] = []
    /// Samples that are neither silence nor the signal at the right time on the right channel.
    public var wrongSamples: Int64 = 0
    /// The first few wrong samples: (frame, channel, expected frame time, decoded frame time).
    public var firstWrong: [WrongSample] = []

    public struct WrongSample: Equatable, Sendable {
        public var frame: Int64
        public var channel: Int
        public var expected: Int
        public var found: Int?
    }

    /// Runs of consecutive signal frames: a new one starts where the file jumps to another frame
    /// time with every channel consistent (a pause leaves exactly such a jump).
    public var segments: [Segment] = []

    public struct Segment: Equatable, Sendable {
        /// Index in the file of the segment's first frame.
        public var position: Int64
        /// The frame time (modulo 2^22) the first frame encodes.
        public var frameTime: Int
        public var frames: Int64

        public init(position: Int64, frameTime: Int, frames: Int64) {
            self.position = position
            self.frameTime = frameTime
            self.frames = frames
        }
    }

    /// Every frame is the signal, in one run: no silence, no jump, nothing wrong.
    public var isIntact: Bool {
        wrongSamples == 0 && silentSpans.isEmpty && firstFrameTime != nil && segments.count == 1
    }

    /// Every frame is the signal, in runs (pauses), with no silence and nothing wrong.
    public var isIntactInSegments: Bool { wrongSamples == 0 && silentSpans.isEmpty && !segments.isEmpty }

    public var description: String {
        var text = "\(frames) frames, \(channels) channels"
        if let firstFrameTime { text += ", first frame encodes frame time \(firstFrameTime) (mod 2^22)" }
        text += isIntact ? "; every sample is the test signal, in order, on the right channel"
            : "; \(wrongSamples) wrong samples, silent spans: \(silentSpans.isEmpty ? "none" : silentSpans.map(\.description).joined(separator: ", "))"
        return text
    }

    /// Reads a recorded file and checks every sample against the test signal. Frames silent on
    /// every channel are reported as spans (the file's padding for lost frames); any other
    /// mismatch counts as wrong. `signalChannels` names the test-signal channel (0-based) each
    /// file channel recorded (a session's file of tracks 7 and 8: [6, 7]); nil: file channel c is
    /// signal channel c.
    package static func check(file: SoundFile, signalChannels: [Int]? = nil) -> TestSignalReport {
        var report = TestSignalReport()
        report.channels = file.channels
        let channels = file.channels
        let signalChannel = signalChannels ?? Array(0..<channels)
        guard signalChannel.count == channels else {
            report.note(frame: 0, channel: 0, expected: -1, found: nil)
            return report
        }
        let chunk = 16_384
        var buffer = [Float](repeating: 0, count: chunk * channels)
        var frameIndex: Int64 = 0
        var silentStart: Int64?
        // The current segment's frame time at file frame 0 (modulo 2^22).
        var segmentBase = 0
        while true {
            let read = buffer.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: chunk) }
            if read <= 0 { break }
            for local in 0..<read {
                let frame = frameIndex + Int64(local)
                let base = local * channels
                var silent = true
                for channel in 0..<channels where buffer[base + channel] != 0 { silent = false; break }
                if silent, report.firstFrameTime != nil {
                    // The signal itself is 0 once every 2^22 frames on each channel: a frame whose
                    // every channel should be 0 there is the signal, not silence.
                    let due = (segmentBase + Int(frame % Int64(TestSignal.timeModulus))) % TestSignal.timeModulus
                    if (0..<channels).allSatisfy({ TestSignal.sample(frameTime: UInt32(due), channel: signalChannel[$0]) == 0 }) {
                        silent = false
                    }
                }
                if silent {
                    if silentStart == nil { silentStart = frame }
                    continue
                }
                if let start = silentStart {
                    report.silentSpans.append(LostSpan(position: start, frames: frame - start))
                    silentStart = nil
                }
                if report.firstFrameTime == nil {
                    guard let decoded = TestSignal.frameTime(decoding: buffer[base], channel: signalChannel[0]) else {
                        report.note(frame: frame, channel: 0, expected: -1, found: nil)
                        continue
                    }
                    report.firstFrameTime = ((decoded - Int(frame % Int64(TestSignal.timeModulus))) % TestSignal.timeModulus
                        + TestSignal.timeModulus) % TestSignal.timeModulus
                    segmentBase = report.firstFrameTime!
                    report.segments.append(Segment(position: frame, frameTime: decoded, frames: 0))
                }
                var expected = (segmentBase + Int(frame % Int64(TestSignal.timeModulus))) % TestSignal.timeModulus
                if buffer[base] != TestSignal.sample(frameTime: UInt32(expected), channel: signalChannel[0]),
                   let decoded = TestSignal.frameTime(decoding: buffer[base], channel: signalChannel[0]),
                   (0..<channels).allSatisfy({ buffer[base + $0] == TestSignal.sample(frameTime: UInt32(decoded), channel: signalChannel[$0]) }) {
                    // The file jumps to another time, consistently on every channel: a new segment.
                    segmentBase = ((decoded - Int(frame % Int64(TestSignal.timeModulus))) % TestSignal.timeModulus
                        + TestSignal.timeModulus) % TestSignal.timeModulus
                    expected = decoded
                    report.segments.append(Segment(position: frame, frameTime: decoded, frames: 0))
                }
                if !report.segments.isEmpty { report.segments[report.segments.count - 1].frames = frame + 1 - report.segments[report.segments.count - 1].position }
                for channel in 0..<channels {
                    let sample = buffer[base + channel]
                    if sample != TestSignal.sample(frameTime: UInt32(expected), channel: signalChannel[channel]) {
                        report.note(frame: frame, channel: channel, expected: expected,
                                    found: TestSignal.frameTime(decoding: sample, channel: signalChannel[channel]))
                    }
                }
            }
            frameIndex += Int64(read)
        }
        if let start = silentStart {
            report.silentSpans.append(LostSpan(position: start, frames: frameIndex - start))
        }
        report.frames = frameIndex
        return report
    }

    private mutating func note(frame: Int64, channel: Int, expected: Int, found: Int?) {
        wrongSamples += 1
        if firstWrong.count < 8 {
            firstWrong.append(WrongSample(frame: frame, channel: channel, expected: expected, found: found))
        }
    }
}
