import Atomics
import Foundation

/// Frames of a take that hold silence because they never reached the file: dropped whole on
/// overrun, or skipped by JACK's clock in an xrun.
public struct LostSpan: Equatable, Sendable, CustomStringConvertible {
    /// Index in the take of the first silent frame, at the server's rate (in a file written at
    /// another rate it is at `DiskWriter.fileFrames(forTakeFrames:)`).
    public var position: Int64
    public var frames: Int64

    public init(position: Int64, frames: Int64) {
        self.position = position
        self.frames = frames
    }

    public var description: String { "\(frames) frames at \(position)" }
}

/// Where a disk writer's blocks come from: a ring, and how the take stands.
package struct DiskWriterSource: Sendable {
    package var ring: RingBuffer
    package var channels: Int
    /// Frames per JACK period: the writer polls about twice a period when the ring is empty.
    package var periodFrames: Int
    /// The take whose blocks the writer writes: blocks of earlier takes are skipped, a block of a
    /// later one ends the writer's take.
    package var take: UInt32
    /// The take's phase, and its final length once finished (read after the phase).
    package var progress: @Sendable () -> (phase: CapturePhase, position: Int64)
    /// Given each channel's frames as they go into the take (one run per channel and span), for
    /// the take's highest peaks and clip counts; nil: not measured.
    package var measureTake: (@Sendable (_ channel: Int, _ samples: UnsafePointer<Float>, _ count: Int) -> Void)?

    package init(ring: RingBuffer, channels: Int, periodFrames: Int, take: UInt32 = 0,
                progress: @escaping @Sendable () -> (phase: CapturePhase, position: Int64)) {
        self.ring = ring
        self.channels = channels
        self.periodFrames = periodFrames
        self.take = take
        self.progress = progress
    }
}

extension CaptureEngine {
    /// Take `take` of the engine as a disk writer's source.
    package func writerSource(forTake take: UInt32) -> DiskWriterSource {
        // The take's peaks start from nothing; the last take's are in its report already.
        let levels = state.pointee.meters
        levels.resetTake()
        var source = DiskWriterSource(ring: ring, channels: channelCount, periodFrames: client.bufferSize, take: take) { [self] in
            let armed = armedTake
            // Not armed yet: the writer waits for its first block.
            if FrameTime.distance(from: armed, to: take) > 0 { return (.waiting, 0) }
            // Another take armed since: this one's blocks are all on the ring before the other's,
            // and the writer stops at the first of those (nothing to trim or pad from here).
            guard armed == take else { return (.missedStart, 0) }
            let phase = self.phase
            return (phase, status.position)
        }
        source.measureTake = { [self] channel, samples, count in
            if isMeteringEnabled { levels.measureTake(channel: channel, samples: samples, count: count) }
        }
        return source
    }
}

/// The disk-writer thread: drains the engine's ring into a sound file.
///
/// Blocks arrive planar, one per cycle; the writer interleaves them and writes them with
/// libsndfile. Whenever a block's position is past the frames written so far, the frames between
/// were lost (the callback dropped a cycle, or JACK's clock jumped): the writer writes exactly
/// that much silence first, so every later frame stays at its true place in the take, and notes
/// the span. The header is rewritten twice a second so a killed process leaves a readable file.
///
/// With a `SampleRateConverter` the file is written at the converter's output rate: every frame
/// the writer would write (the take's frames and the silence for lost spans alike) goes through
/// the converter, one batch at a time, and the end of the take flushes the converter's tail, so
/// the file holds exactly `fileFrames(forTakeFrames:)` of the take's frames. The process callback
/// never sees the conversion.
package final class DiskWriter: @unchecked Sendable {
    package let source: DiskWriterSource
    package let file: SoundFile
    /// Converts the take from the server's rate to the file's, or nil when they are the same.
    package let converter: SampleRateConverter?
    private let channels: Int
    private let headerInterval: Int64
    private let framesWrittenCounter = ManagedAtomic<Int64>(0)
    private let framesInFileCounter = ManagedAtomic<Int64>(0)
    private let abandonFlag = ManagedAtomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var started = false

    // Owned by the writer thread while it runs; read by others after `finish()`.
    private(set) package var lostSpans: [LostSpan] = []
    private(set) package var failure: CaptureError?
    private let failedFlag = ManagedAtomic<Bool>(false)

    /// Called on the writer thread before each block is written, with the block's position: how
    /// tests make a deliberately slow disk.
    var beforeEachBlock: (@Sendable (Int64) -> Void)?

    /// A writer of `source`'s blocks into `file`; with a `converter`, whose channels are the
    /// source's and whose output rate is the file's, the file is written at that rate.
    ///
    /// The converter's channels and rate are preconditions, not errors: they are checks of the
    /// caller's own consistency (a Take makes the converter, the file and the source from
    /// one channel count and one rate), not of input a user can get wrong.
    package init(source: DiskWriterSource, file: SoundFile, converter: SampleRateConverter? = nil) {
        if let converter {
            precondition(converter.channels == source.channels,
                         "the converter has \(converter.channels) channels, the take \(source.channels)")
            precondition(converter.outputRate == file.sampleRate,
                         "the converter makes \(converter.outputRate) Hz, the file is \(file.sampleRate) Hz")
        }
        self.source = source
        self.file = file
        self.converter = converter
        channels = source.channels
        // Counted in frames of the file, so twice a second at whatever rate it is written.
        headerInterval = Int64(max(1, file.sampleRate / 2))
    }

    /// Frames of the take written so far, at the server's rate (silence for lost spans
    /// included): what lost-span positions, reports and elapsed time count. Without a converter
    /// these are the frames in the file; with one, the file lags by the filter's reach (143 frames
    /// at 44.1 kHz with `.best`) until the end of the take flushes it (`framesInFile`).
    package var framesWritten: Int64 { framesWrittenCounter.load(ordering: .relaxed) }

    /// Frames in the file so far, at the file's rate.
    package var framesInFile: Int64 { framesInFileCounter.load(ordering: .relaxed) }

    /// Where the take's frame `frames` falls in the file, and how long the file is once a take of
    /// `frames` frames is finished: the same number without a converter, else
    /// round(frames × file rate / server rate) (`SampleRateConverter.outputLength`).
    package func fileFrames(forTakeFrames frames: Int64) -> Int64 {
        converter?.outputLength(forInputFrames: frames) ?? frames
    }

    /// True once a write has failed; the take cannot continue.
    package var hasFailed: Bool { failedFlag.load(ordering: .acquiring) }

    /// Starts the writer thread. Once per writer (a precondition: its Take starts it once).
    package func start() {
        precondition(!started, "a disk writer runs once")
        started = true
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.name = "jcap disk writer"
        thread.start()
    }

    /// Waits for the writer to write every frame of the take and closes the file. With
    /// `abandoning`, the take will not finish (the server is gone): the writer writes what the
    /// ring holds and stops there.
    package func finish(abandoning: Bool = false) {
        if abandoning { abandonFlag.store(true, ordering: .releasing) }
        if started { done.wait() }
        do {
            try file.close()
        } catch {
            if failure == nil { failure = error }
        }
    }

    /// How long the writer sleeps when the ring has nothing for it. The ring holds seconds, so
    /// waking 50 times a second loses nothing and lets each wake write many periods at once.
    static let idleSleepMicroseconds: useconds_t = 20_000

    private func run() {
        var planar = [Float]()
        var headerBytes = CaptureBlockHeader(position: 0, frameCount: 0, frameTime: 0)
        var written: Int64 = 0
        var inFile: Int64 = 0
        var sinceHeaderUpdate: Int64 = 0
        let ring = source.ring
        let converter = self.converter
        // Frames interleaved and not yet handed to libsndfile: everything one wake drains goes out
        // in writes of up to 8192 frames (about 1 MB at most, never less than a period), not one
        // small write(2) per period, without a batch that grows with the channel count.
        var batchFrames = max(source.periodFrames, min(8_192, (1 << 20) / (channels * MemoryLayout<Float>.stride)))
        var batch = [Float](repeating: 0, count: batchFrames * channels)
        var batched = 0
        var endedByNextTake = false

        func writeToFile(_ samples: UnsafePointer<Float>, frames: Int) throws(CaptureError) {
            try file.write(interleaved: samples, frames: frames)
            inFile += Int64(frames)
            sinceHeaderUpdate += Int64(frames)
            framesInFileCounter.store(inFile, ordering: .relaxed)
            if sinceHeaderUpdate >= headerInterval {
                file.updateHeader()
                sinceHeaderUpdate = 0
            }
        }

        /// Writes `frames` interleaved frames of the take: to the file, or through the converter
        /// to it (one src_process per batch, not per period).
        func write(_ samples: UnsafePointer<Float>, frames: Int) throws(CaptureError) {
            if let converter {
                try converter.convert(samples, frames: frames, emit: writeToFile)
            } else {
                try writeToFile(samples, frames: frames)
            }
            written += Int64(frames)
            framesWrittenCounter.store(written, ordering: .relaxed)
        }

        func flush() throws(CaptureError) {
            guard batched > 0 else { return }
            let frames = batched
            batched = 0
            try batch.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
                try write(buffer.baseAddress!, frames: frames)
            }
        }

        func writeSilence(until position: Int64) throws(CaptureError) {
            guard position > written + Int64(batched) else { return }
            try flush()
            lostSpans.append(LostSpan(position: written, frames: position - written))
            for index in batch.indices { batch[index] = 0 }
            var remaining = position - written
            while remaining > 0 {
                let frames = Int(min(remaining, Int64(batchFrames)))
                try batch.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
                    try write(buffer.baseAddress!, frames: frames)
                }
                remaining -= Int64(frames)
            }
        }

        do throws(CaptureError) {
            while true {
                let progress = source.progress()
                let phase = progress.phase
                let abandoned = abandonFlag.load(ordering: .acquiring)
                let ending = phase == .finished || phase == .missedStart || abandoned || endedByNextTake
                // The take's final length, once it has ended: a stop can fall inside the newest block.
                let end = phase == .finished ? progress.position : Int64.max
                var drained = false
                while true {
                    let readable = ring.readableByteCount()
                    guard readable >= CaptureBlockHeader.byteCount else { break }
                    withUnsafeMutableBytes(of: &headerBytes) { raw in
                        ring.peek(into: raw.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0)
                    }
                    if headerBytes.take != source.take && FrameTime.distance(from: source.take, to: headerBytes.take) > 0 {
                        // The next take's first block: this take has no more.
                        endedByNextTake = true
                        break
                    }
                    let stored = Int(headerBytes.frameCount)
                    let blockBytes = CaptureBlockHeader.blockByteCount(frames: stored, channels: channels)
                    // Hold the newest block until a later one arrives or the take ends.
                    if !ending && readable < blockBytes + CaptureBlockHeader.byteCount { break }
                    let current = headerBytes.take == source.take
                    for index in 0..<(current ? Int(headerBytes.spanCount) : 0) {
                        let span = headerBytes.span(index)
                        let frames = Int(min(Int64(span.count), max(0, end - span.position)))
                        guard frames > 0 else { continue }
                        let samples = frames * channels
                        if planar.count < samples { planar = [Float](repeating: 0, count: samples) }
                        planar.withUnsafeMutableBytes { raw in
                            // Channel after channel, `frames` frames from the span's offset in
                            // each run of `stored`.
                            for channel in 0..<channels {
                                ring.peek(into: raw.baseAddress! + channel * frames * MemoryLayout<Float>.stride,
                                          byteCount: frames * MemoryLayout<Float>.stride,
                                          at: CaptureBlockHeader.byteCount
                                            + (channel * stored + Int(span.offset)) * MemoryLayout<Float>.stride)
                            }
                        }
                        if let measureTake = source.measureTake {
                            planar.withUnsafeBufferPointer { samples in
                                for channel in 0..<channels {
                                    measureTake(channel, samples.baseAddress! + channel * frames, frames)
                                }
                            }
                        }
                        beforeEachBlock?(span.position)
                        try writeSilence(until: span.position)
                        if batched + frames > batchFrames { try flush() }
                        if frames > batchFrames {
                            // The server's period grew past the batch mid-take (jack_bufsize): the
                            // batch grows with it, here on the writer thread.
                            batchFrames = frames
                            batch = [Float](repeating: 0, count: batchFrames * channels)
                        }
                        DiskWriter.interleave(planar: planar, into: &batch, at: batched, frames: frames, channels: channels)
                        batched += frames
                    }
                    ring.commitRead(byteCount: blockBytes)
                    drained = true
                }
                try flush()
                if ending {
                    // Every block is on the ring before the callback publishes `finished`; frames
                    // lost at the very end are padded up to the take's final length.
                    if phase == .finished && !endedByNextTake { try writeSilence(until: end) }
                    break
                }
                if !drained { usleep(Self.idleSleepMicroseconds) }
            }
            // The filter's tail, and the file's length made exact.
            try converter?.finish(emit: writeToFile)
            file.updateHeader()
        } catch {
            failure = error
            failedFlag.store(true, ordering: .releasing)
        }
    }

    /// Planar channel blocks to interleaved frames: `planar` holds `channels` runs of `frames`,
    /// written to `interleaved` from frame `offset` on.
    ///
    /// A transpose, done in tiles of 32 channels by 32 frames: with many channels, writing one
    /// channel down the whole block would store every `channels × 4` bytes, a new cache line (and
    /// at 1024 channels a new page) per sample, which made the writer barely faster than real time.
    static func interleave(planar: [Float], into interleaved: inout [Float], at offset: Int = 0, frames: Int,
                           channels: Int) {
        let tile = 32
        planar.withUnsafeBufferPointer { source in
            interleaved.withUnsafeMutableBufferPointer { destination in
                let input = source.baseAddress!
                let output = destination.baseAddress! + offset * channels
                var firstChannel = 0
                while firstChannel < channels {
                    let lastChannel = min(firstChannel + tile, channels)
                    var firstFrame = 0
                    while firstFrame < frames {
                        let lastFrame = min(firstFrame + tile, frames)
                        for frame in firstFrame..<lastFrame {
                            let row = output + frame * channels
                            for channel in firstChannel..<lastChannel {
                                row[channel] = input[channel * frames + frame]
                            }
                        }
                        firstFrame = lastFrame
                    }
                    firstChannel = lastChannel
                }
            }
        }
    }
}
