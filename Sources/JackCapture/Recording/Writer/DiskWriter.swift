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

    /// `spans` in order of position, with spans that overlap or touch joined into one.
    public static func merged(_ spans: [LostSpan]) -> [LostSpan] {
        var merged: [LostSpan] = []
        for span in spans.filter({ $0.frames > 0 }).sorted(by: { $0.position < $1.position }) {
            if let last = merged.last, span.position <= last.position + last.frames {
                merged[merged.count - 1].frames = max(last.frames, span.position + span.frames - last.position)
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    /// The part of this span inside [`start`, `end`), counted from `start`; nil if none.
    public func clipped(from start: Int64, to end: Int64) -> LostSpan? {
        let first = max(position, start), last = min(position + frames, end)
        return last > first ? LostSpan(position: first - start, frames: last - first) : nil
    }
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
    /// Given what the writer measured of each channel's frames as they went into the take (the
    /// highest |sample| and the samples at or beyond full scale), for the live meters' take peaks;
    /// nil: not wanted.
    package var measureTake: (@Sendable (_ channel: Int, _ peak: Float, _ clips: Int) -> Void)?

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
        source.measureTake = { [self] channel, peak, clips in
            if isMeteringEnabled { levels.recordTake(channel: channel, peak: peak, clips: clips) }
        }
        return source
    }
}


/// One file of a take: which of the take's channels it holds, in the file's channel order, and
/// the converter to the file's rate (nil when the file is at the server's rate).
package struct TakeOutput: @unchecked Sendable {
    package let file: SoundFile
    package let channels: [Int]
    package let converter: SampleRateConverter?

    package init(file: SoundFile, channels: [Int], converter: SampleRateConverter? = nil) {
        self.file = file
        self.channels = channels
        self.converter = converter
    }
}

/// One file of a finished take (or segment): its path, the take's channels it holds in file
/// order, and its length at the file's rate.
public struct TakeFileReport: Equatable, Sendable {
    public var path: String
    public var channels: [Int]
    public var frames: Int64
}

/// Where a segment after the first begins, as the writer asks for its files.
package struct TakeSegmentStart: Equatable, Sendable {
    /// 1 for the second segment.
    package var index: Int
    /// For a clock-aligned split: the boundary that began it (1 for the take's first),
    /// nil for a segment of a fixed length.
    package var splitBoundary: Int?
    /// The boundary's wall-clock moment, microseconds since the Unix epoch (nil without one).
    package var boundaryMicroseconds: Int64?

    package init(index: Int, splitBoundary: Int? = nil, boundaryMicroseconds: Int64? = nil) {
        self.index = index
        self.splitBoundary = splitBoundary
        self.boundaryMicroseconds = boundaryMicroseconds
    }
}

/// A stretch of a take written to files of its own. A take is one segment unless it was split:
/// A session records N takes back to back as the segments of one engine take, and
/// a split take begins a segment on each wall-clock boundary; either way each begins on the frame
/// after the last one ended.
public struct TakeSegment: Sendable {
    /// 0 for the first.
    public var index: Int
    /// The clock-aligned split boundary it began at (nil: the first segment, or a fixed length's).
    public var splitBoundary: Int?
    /// Whether the take ended with it (its files were closed when the take's were), rather than
    /// where the next segment began.
    public var isLast: Bool
    /// Take position of its first frame (server-rate frames).
    public var position: Int64
    /// Its length in take frames (server rate), lost frames included.
    public var frames: Int64
    /// JACK frame time of its first frame, when known (nil when nothing was written).
    public var firstFrameTime: UInt32?
    /// JACK frame time just after its last frame, when known.
    public var endFrameTime: UInt32?
    public var files: [TakeFileReport]
    /// Frames in it that are silence because they never arrived, positions counted from its start.
    public var lostSpans: [LostSpan]
    /// Each take channel's highest peak (dBFS) and clipped samples within it.
    public var channelLevels: [ChannelLevels]
}

/// The disk-writer thread: drains the engine's ring into the take's sound files.
///
/// Blocks arrive planar, one per cycle; for each file the writer gathers that file's channels
/// into frames (a copy for a mono file, an interleave for several) and writes them with
/// libsndfile. Whenever a block's position is past the frames written so far, the frames between
/// were lost (the callback dropped a cycle, or JACK's clock jumped): the writer writes exactly
/// that much silence first, so every later frame stays at its true place in the take, and notes
/// the span. Headers are rewritten twice a second so a killed process leaves readable files.
///
/// With a `segmentLength`, every that many take frames the writer closes the segment's files
/// (`onSegmentFinished` says how it went) and asks `openSegment` for the next one's: a split on
/// an exact frame, none lost or repeated across it. A block can also name a take position where
/// the next segment begins (`CaptureBlockHeader.splitPosition`, a clock-aligned split), so
/// segments may be of any length; the block that names one comes before any frame at or past it.
/// A segment is closed when the next one's first frame comes, so a split at the take's very end
/// makes no empty segment.
///
/// With a `SampleRateConverter` a file is written at the converter's output rate: every frame
/// the writer would write (the take's frames and the silence for lost spans alike) goes through
/// the converter, one batch at a time, and the end of the segment flushes the converter's tail,
/// so the file holds exactly `fileFrames(forTakeFrames:)` of its frames. The process callback
/// never sees the conversion.
package final class DiskWriter: @unchecked Sendable {
    // @unchecked: its results are written on its butler and read only after `finish()` joined it.
    package let source: DiskWriterSource
    /// The first segment's files (created before the take is armed, so their errors come first).
    package let firstOutputs: [TakeOutput]
    private let segmentLength: Int64?
    private let openSegment: ((TakeSegmentStart) throws(CaptureError) -> [TakeOutput])?
    private let channels: Int
    private let framesWrittenCounter = ManagedAtomic<Int64>(0)
    private let framesInFileCounter = ManagedAtomic<Int64>(0)
    private let abandonFlag = ManagedAtomic<Bool>(false)
    /// The writer's thread: one round that writes the whole take, resting between passes over
    /// the ring (`idleWait`) unless `finish` or `wake` wakes it.
    private let butler = Butler(name: "jcap disk writer", idleWait: DiskWriter.idleWait)
    private var started = false

    // Owned by the writer thread while it runs; read by others after `finish()`.
    private(set) package var lostSpans: [LostSpan] = []
    private(set) package var failure: CaptureError?
    private(set) package var segments: [TakeSegment] = []
    private let failedFlag = ManagedAtomic<Bool>(false)

    /// Called on the writer thread before each block is written, with the block's position: how
    /// tests make a deliberately slow disk.
    var beforeEachBlock: (@Sendable (Int64) -> Void)?
    /// Called on the writer thread just before a segment's first frame is written, with the
    /// segment's index, its files and the JACK frame time of its first frame (nil if not known):
    /// where metadata that must precede the audio (BWF `bext`, iXML) is added, and a take log
    /// records that the take has begun. A thrown error fails the take like a write error.
    package var beforeFirstWrite: ((Int, [TakeOutput], UInt32?) throws(CaptureError) -> Void)?
    /// Called on the writer thread when a segment's files are closed.
    package var onSegmentFinished: ((TakeSegment) -> Void)?

    /// A writer of `source`'s blocks into `outputs` (each file one or more of the source's
    /// channels; a converter's channels are its file's, its output rate the file's rate).
    ///
    /// The outputs' channels and converters are preconditions, not errors: they are checks of the
    /// caller's own consistency (a Take makes the files, converters and source from one channel
    /// count and one rate), not of input a user can get wrong.
    package init(source: DiskWriterSource, outputs: [TakeOutput], segmentLength: Int64? = nil,
                 openSegment: ((TakeSegmentStart) throws(CaptureError) -> [TakeOutput])? = nil) {
        precondition(!outputs.isEmpty, "a take writes at least one file")
        for output in outputs {
            precondition(!output.channels.isEmpty && output.channels.allSatisfy { (0..<source.channels).contains($0) },
                         "a file's channels are some of the take's")
            if let converter = output.converter {
                precondition(converter.channels == output.channels.count,
                             "the converter has \(converter.channels) channels, the file \(output.channels.count)")
                precondition(converter.outputRate == output.file.sampleRate,
                             "the converter makes \(converter.outputRate) Hz, the file is \(output.file.sampleRate) Hz")
            }
        }
        precondition(segmentLength.map { $0 > 0 } ?? true, "a segment is longer than zero")
        self.source = source
        firstOutputs = outputs
        self.segmentLength = segmentLength
        self.openSegment = openSegment
        channels = source.channels
    }

    /// A writer of every channel of `source` into one file.
    package convenience init(source: DiskWriterSource, file: SoundFile, converter: SampleRateConverter? = nil) {
        self.init(source: source, outputs: [TakeOutput(file: file, channels: Array(0..<source.channels), converter: converter)])
    }

    /// The first file: the whole take's when there is one file.
    package var file: SoundFile { firstOutputs[0].file }

    /// Frames of the take written so far, at the server's rate (silence for lost spans
    /// included): what lost-span positions, reports and elapsed time count. Without a converter
    /// these are the frames in the files; with one, a file lags by the filter's reach (143 frames
    /// at 44.1 kHz with `.best`) until the end of the take flushes it (`framesInFile`).
    package var framesWritten: Int64 { framesWrittenCounter.load(ordering: .relaxed) }

    /// Frames in the current segment's first file so far, at the file's rate.
    package var framesInFile: Int64 { framesInFileCounter.load(ordering: .relaxed) }

    /// Where the take's frame `frames` falls in a file, and how long a file is once a take (or
    /// segment) of `frames` frames is finished: the same number without a converter, else
    /// round(frames × file rate / server rate) (`SampleRateConverter.outputLength`).
    package func fileFrames(forTakeFrames frames: Int64) -> Int64 {
        firstOutputs[0].converter?.outputLength(forInputFrames: frames) ?? frames
    }

    /// True once a write has failed; the take cannot continue.
    package var hasFailed: Bool { failedFlag.load(ordering: .acquiring) }

    /// Starts the writer thread. Once per writer (a precondition: its Take starts it once).
    package func start() {
        precondition(!started, "a disk writer runs once")
        started = true
        butler.start { [self] in
            run()
            return .done
        }
    }

    /// Looks at the ring at once (the take was told to stop).
    package func wake() { butler.wake() }

    /// Waits for the writer to write every frame of the take and close its files. With
    /// `abandoning`, the take will not finish (the server is gone): the writer writes what the
    /// ring holds and stops there. Never started, the first segment's files are closed here.
    package func finish(abandoning: Bool = false) {
        if abandoning { abandonFlag.store(true, ordering: .releasing) }
        if started {
            // Wakes the writer and waits for it to write the rest and exit.
            butler.join()
        } else {
            for output in firstOutputs { try? output.file.close() }
        }
    }

    /// How long the writer rests when the ring has nothing for it. The ring holds seconds, so
    /// waking 50 times a second loses nothing and lets each wake write many periods at once.
    static let idleWait = Duration.milliseconds(20)

    /// The frames gathered for a file and not yet handed to libsndfile: one batch for all the
    /// files, since the writer takes them one at a time. Small enough to stay in the second-level
    /// cache between the transpose that fills it and the copy out of it (into the page cache, or
    /// a direct file's buffer), and to keep each write(2) short (on a kernel without preemption,
    /// a real-time thread waiting for this CPU waits for the copy to end).
    static let batchLimit = 256 << 10
    /// A pass of the writer over a take written around the page cache waits (unless the take is
    /// ending) until each file has this many bytes to write, or half a second of frames: each
    /// file's turn then ends in one write this large, while the frames wait in the ring, not in a
    /// buffer of each file's. The kernel's cost is per write, not per byte (BENCHMARKS.md: 1024
    /// files in 16 KiB blocks cost 2.7 s more system time in a 10 s take than in 64 KiB blocks;
    /// `files-floor` writing 1024 files took 0.89 s in 64 KiB writes, 0.37 s in 192 KiB), so a mono
    /// track waits for as much as the half second a killed process may lose.
    static let directWriteMinimum = 256 << 10

    /// Take frames a pass waits for, and the most it takes, for `outputs` from a ring of
    /// `ringFrames` frames at `sampleRate`. Written around the page cache: enough frames for
    /// `directWriteMinimum` bytes of the narrowest file, at most half a second (24,000 frames of a
    /// mono track at 48 kHz, 94 KB in float) and a quarter of the ring; otherwise whatever the
    /// ring holds. A pass takes at most twice its minimum, an eighth of a second at least, and
    /// a quarter of the ring: the ring's room comes back when a pass ends.
    static func passFrames(outputs: [TakeOutput], ringFrames: Int, sampleRate: Int) -> (minimum: Int, most: Int) {
        let quarter = max(1, ringFrames / 4)
        var minimum = 0
        if outputs.allSatisfy(\.file.isDirect), let narrowest = outputs.map(\.file.bytesPerFrame).min() {
            minimum = min(directWriteMinimum / max(1, narrowest), max(1, sampleRate / 2), quarter)
        }
        return (minimum, min(max(2 * minimum, sampleRate / 8), quarter))
    }

    /// A stretch of the take a pass writes: frames from the ring, each channel's run in the pass's
    /// run table from `runs` on, or silence for frames lost (`runs` nil).
    private struct PassPiece {
        var position: Int64
        var frames: Int
        var runs: Int?
        /// JACK frame time of its first frame (nil for silence).
        var frameTime: UInt32?
    }

    /// A file being written: its frames gathered in the writer's batch and not yet handed to
    /// libsndfile, what it holds and when its header was last rewritten. Its page cache is kept
    /// small (`PageCacheWindow`, shared by all the files).
    private final class OpenOutput {
        let output: TakeOutput
        /// The writer's batch, and how many of this file's frames fit in it.
        let batch: UnsafeMutablePointer<Float>
        let batchFrames: Int
        /// Where the frames being gathered go, and how many fit: the writer's batch, or room in
        /// the direct file's own buffer (`SoundFile.inPlaceFrames`), which saves copying them
        /// again into it (`jcap-writer-benchmark --kernels`, interleaved files: in place about
        /// as fast as the batch and its copy at 512 and 1024 channels and up to 11 % faster at
        /// 64, since a tile is measured after its transpose; 13 % slower at 512 before).
        private(set) var gathering: UnsafeMutablePointer<Float>
        private var gatheringFrames: Int
        /// The frames go straight into the direct file's buffer, which only the disk reads.
        var gathersInPlace: Bool { gathering != batch }
        var batched = 0
        var inFile: Int64 = 0
        var sinceHeaderUpdate: Int64 = 0
        let headerInterval: Int64
        /// Its header was rewritten at least once (with the frames written so far).
        var hasUpdatedHeader = false
        /// Where this file's channels start in the piece being written (filled per piece).
        let runs: UnsafeMutablePointer<UnsafePointer<Float>>
        /// Its channels are the take's, in order: the piece's own runs serve.
        let isEveryChannel: Bool
        /// Its channels' levels, measured while gathering them.
        let levels: FrameGather.Levels

        init(_ output: TakeOutput, files: Int, takeChannels: Int, batch: UnsafeMutablePointer<Float>) {
            self.output = output
            let width = output.channels.count
            self.batch = batch
            batchFrames = max(1, min(8_192, DiskWriter.batchLimit / (width * MemoryLayout<Float>.stride)))
            gathering = batch
            gatheringFrames = batchFrames
            // Counted in frames of the file, so twice a second at whatever rate it is written;
            // with more than 256 files, so that all of them together rewrite at most 512 headers
            // a second (1024 tracks: each every 2 s). Each rewrite is three system calls and
            // libsndfile building the header; a killed session's files are repaired from the
            // take log whatever their headers said (`TakeFileRepair`).
            headerInterval = Int64(max(1, output.file.sampleRate / 2)) * Int64(max(1, (files + 255) / 256))
            runs = .allocate(capacity: width)
            levels = FrameGather.Levels(width: width)
            isEveryChannel = output.channels == Array(0..<takeChannels)
            // A file written around the page cache (O_DIRECT) has none to keep small.
            if !output.file.isDirect { output.file.pageCacheWindow = PageCacheWindow(files: files) }
        }

        deinit {
            runs.deallocate()
            levels.deallocate()
        }

        func writeToFile(_ samples: UnsafePointer<Float>, frames: Int) throws(CaptureError) {
            // A short write (a full disk) still put some frames in the file: counted, so the
            // report and the log say what the file holds.
            let before = output.file.framesWritten
            defer { inFile += output.file.framesWritten - before }
            try output.file.write(interleaved: samples, frames: frames)
            sinceHeaderUpdate += Int64(frames)
        }

        /// Writes the batch: to the file, or through the converter to it (one src_process per
        /// batch, not per period).
        func flush() throws(CaptureError) {
            guard batched > 0 else { return }
            let frames = batched
            batched = 0
            if let converter = output.converter {
                try converter.convert(batch, frames: frames, emit: writeToFile)
            } else {
                try writeToFile(gathering, frames: frames)
            }
        }

        /// The writer is done with this file for this pass: its batch to the file, a direct
        /// file's whole blocks to the disk (its buffer back to the pool), and its header
        /// rewritten when it is due: a direct file's blocks, its partial block padded and its
        /// header then cost two writes.
        func endTurn() throws(CaptureError) {
            try flush()
            guard sinceHeaderUpdate >= headerInterval else { return output.file.sendWrittenBlocks() }
            output.file.updateHeader()
            sinceHeaderUpdate = 0
            hasUpdatedHeader = true
        }

        /// The first failure of `writeLast`, thrown by `close`.
        private var lastWriteError: CaptureError?
        private var hasWrittenLast = false

        /// Flushes, writes the converter's tail and makes the header exact, waiting for nothing:
        /// a segment's files all send their last writes, are waited for together, then close
        /// (closed one by one, 1024 files waited for the disk 1024 times). When a write fails (a
        /// full disk) the header is still made exact, so the file declares every frame it holds.
        func writeLast() {
            guard !hasWrittenLast else { return }
            hasWrittenLast = true
            do throws(CaptureError) {
                try flush()
                try output.converter?.finish(emit: writeToFile)
            } catch {
                lastWriteError = error
            }
            output.file.updateHeader()
        }

        /// Closes the file, after `writeLast` (made here if it was not); the first failure of
        /// either is thrown after the file is closed.
        func close() throws(CaptureError) {
            writeLast()
            var firstError = lastWriteError
            do throws(CaptureError) { try output.file.close() } catch { if firstError == nil { firstError = error } }
            // A direct file's failed writes are found at its close: it holds what the disk took.
            inFile = min(inFile, output.file.framesWritten)
            if let firstError { throw firstError }
        }

        /// Room for up to `frames` more frames: how many fit now, after flushing a full batch.
        func room(for frames: Int) throws(CaptureError) -> Int {
            if batched == gatheringFrames { try flush() }
            if batched == 0 {
                // Frames a converter takes are not the file's: they stay in the batch.
                let room = output.converter == nil ? output.file.inPlaceFrames(atMost: batchFrames) : nil
                if let room, !room.isEmpty {
                    gathering = room.baseAddress!
                    gatheringFrames = room.count / output.channels.count
                } else {
                    // The frame across the end of a direct file's buffer goes alone through the
                    // batch: a batch's worth there cost a copy of an eighth of a 1024-channel
                    // file's frames (`jcap-writer-benchmark`).
                    gathering = batch
                    gatheringFrames = room == nil ? batchFrames : 1
                }
            }
            return min(frames, gatheringFrames - batched)
        }
    }

    private func run() {
        // Each channel's run of each span a pass takes, in the ring's memory (`runTable`, a row of
        // `channels` pointers a span); a run that wraps around the ring's end is copied first.
        var runTable = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: channels)
        var runTableRows = 1
        var wrappedRuns: [UnsafeMutablePointer<Float>] = []
        let batch = UnsafeMutablePointer<Float>.allocate(capacity: DiskWriter.batchLimit / MemoryLayout<Float>.stride)
        defer {
            runTable.deallocate()
            for run in wrappedRuns { run.deallocate() }
            batch.deallocate()
        }
        var headerBytes = CaptureBlockHeader(position: 0, frameCount: 0, frameTime: 0)
        let ring = source.ring
        let channels = self.channels
        var endedByNextTake = false
        let ringFrames = ring.capacity / max(1, channels * MemoryLayout<Float>.stride)
        let sampleRate = firstOutputs[0].converter?.inputRate ?? firstOutputs[0].file.sampleRate
        let pass = DiskWriter.passFrames(outputs: firstOutputs, ringFrames: ringFrames, sampleRate: sampleRate)
        let passMinimumBytes = pass.minimum * channels * MemoryLayout<Float>.stride

        // The segment being written.
        var segmentIndex = 0
        var outputs = firstOutputs.map { OpenOutput($0, files: firstOutputs.count, takeChannels: channels, batch: batch) }
        // Each channel in exactly one file (every layout a Take makes): its levels are measured
        // in the same pass that gathers it into its file. Otherwise in a pass of their own.
        func isPartition(_ outputs: [OpenOutput]) -> Bool {
            outputs.flatMap(\.output.channels).sorted() == Array(0..<channels)
        }
        var measuresWhileGathering = isPartition(outputs)
        var segmentOpen = true
        var segmentBegun = false
        // The segment's files, headers and first frames committed to the disk (once).
        var segmentCommitted = false
        var segmentStart: Int64 = 0
        var segmentFirstFrameTime: UInt32?
        var segmentLost: [LostSpan] = []
        var segmentPeaks = [Float](repeating: 0, count: channels)
        var segmentClips = [Int64](repeating: 0, count: channels)
        var segmentBoundary: Int?
        // Clock-aligned splits announced by the blocks and not yet reached, in take order.
        var segmentStarts: [(position: Int64, boundary: Int)] = []
        var segmentEnd: Int64 {
            let fixed = segmentLength.map { segmentStart + $0 } ?? Int64.max
            let segmentStart = segmentStarts.first { $0.position > segmentStart }?.position ?? Int64.max
            return min(fixed, segmentStart)
        }

        // Take frames written so far (into the files, or the batch of the file being written).
        var written: Int64 = 0
        // A frame whose JACK time is known: the span being written, to time a segment's ends.
        var reference: (position: Int64, frameTime: UInt32)?

        func frameTime(at position: Int64) -> UInt32? {
            reference.map { FrameTime.advance($0.frameTime, by: Int(position - $0.position)) }
        }

        /// `failed`: a write failed (a full disk), so the files hold less than the writer took in.
        func closeSegment(isLast: Bool, failed: Bool = false) throws(CaptureError) {
            guard segmentOpen else { return }
            segmentOpen = false
            var firstError: CaptureError?
            for output in outputs { output.writeLast() }
            for output in outputs { output.output.file.waitForWrites() }
            for output in outputs {
                do throws(CaptureError) { try output.close() } catch { if firstError == nil { firstError = error } }
            }
            if let first = outputs.first { framesInFileCounter.store(first.inFile, ordering: .relaxed) }
            // A close that failed (a full disk found by the last writes: a direct file's at their
            // completion, a batch written at the close) leaves files holding less, as a failed
            // write before it does.
            if failed || firstError != nil {
                // The segment is as long as its shortest file (each file's own length is in its
                // report): no frame a file lacks is claimed, no lost span past the end. That may
                // be more than every file had taken when the write failed (the files before the
                // failing one in the pass took their share), or less (a direct file's writes
                // failing after they were handed over).
                let held = outputs.map { segmentStart + DiskWriter.takeFrames(heldInFile: $0.inFile, converter: $0.output.converter) }
                written = held.min() ?? written
                framesWrittenCounter.store(written, ordering: .relaxed)
                lostSpans = DiskWriter.spans(lostSpans, endingBy: written)
                segmentLost = DiskWriter.spans(segmentLost, endingBy: written - segmentStart)
            }
            let segment = TakeSegment(
                index: segmentIndex, splitBoundary: segmentBoundary, isLast: isLast,
                position: segmentStart, frames: written - segmentStart,
                firstFrameTime: segmentFirstFrameTime, endFrameTime: frameTime(at: written),
                files: outputs.map { TakeFileReport(path: $0.output.file.path, channels: $0.output.channels, frames: $0.inFile) },
                lostSpans: segmentLost,
                channelLevels: (0..<channels).map {
                    ChannelLevels(highestPeak: ChannelMeters.decibels(amplitude: Double(segmentPeaks[$0])), clipCount: segmentClips[$0])
                })
            segments.append(segment)
            onSegmentFinished?(segment)
            if let firstError { throw firstError }
        }

        /// Opens the next segment's files, once its first frame comes.
        func openNextSegment() throws(CaptureError) {
            guard let openSegment else { return }
            segmentIndex += 1
            segmentStart = written
            segmentBoundary = segmentStarts.first { $0.position == written }?.boundary
            segmentStarts.removeAll { $0.position <= written }
            segmentBegun = false
            segmentCommitted = false
            segmentFirstFrameTime = nil
            segmentLost = []
            for channel in 0..<channels {
                segmentPeaks[channel] = 0
                segmentClips[channel] = 0
            }
            let next = try openSegment(TakeSegmentStart(index: segmentIndex, splitBoundary: segmentBoundary))
            outputs = next.map { OpenOutput($0, files: next.count, takeChannels: channels, batch: batch) }
            measuresWhileGathering = isPartition(outputs)
            segmentOpen = true
            framesInFileCounter.store(0, ordering: .relaxed)
        }

        /// What was measured of a channel's frames as they went into the take.
        func record(channel: Int, peak: Float, clips: Int) {
            segmentPeaks[channel] = max(segmentPeaks[channel], peak)
            segmentClips[channel] += Int64(clips)
            source.measureTake?(channel, peak, clips)
        }

        /// Before the next frame: closes a segment that is full and opens the next.
        func prepareSegmentForNextFrame() throws(CaptureError) {
            if segmentOpen && written == segmentEnd { try closeSegment(isLast: false) }
            if !segmentOpen { try openNextSegment() }
        }

        /// The run table's `rows` rows (a span's channels each), grown if need be.
        func reserveRunTable(rows: Int) {
            guard rows > runTableRows else { return }
            let grown = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: rows * channels)
            grown.moveInitialize(from: runTable, count: runTableRows * channels)
            runTable.deallocate()
            runTable = grown
            runTableRows = rows
        }

        /// Puts `parts` of `pieces`, `count` frames inside one segment, into the segment's files:
        /// file after file, each file's share in one turn (so a direct file holds a buffer only
        /// during its turn, and sends its share in one write). A part is frames `from` to `from +
        /// frames` of piece `piece`.
        func put(_ parts: [(piece: Int, from: Int, frames: Int)], of pieces: [PassPiece], frames count: Int) throws(CaptureError) {
            // A silence's frames are timed by the span that came after the loss.
            func timed(_ index: Int) -> PassPiece? {
                pieces[index].runs != nil ? pieces[index] : (index + 1 < pieces.count ? pieces[index + 1] : nil)
            }
            if let first = parts.first, let piece = timed(first.piece), let time = piece.frameTime {
                reference = (piece.position, time)
            }
            if !segmentBegun {
                segmentBegun = true
                segmentFirstFrameTime = frameTime(at: written)
                try beforeFirstWrite?(segmentIndex, outputs.map(\.output), segmentFirstFrameTime)
            }
            var at = written
            for part in parts {
                let piece = pieces[part.piece]
                if piece.runs == nil {
                    segmentLost.append(LostSpan(position: at - segmentStart, frames: Int64(part.frames)))
                } else if !measuresWhileGathering, let row = piece.runs {
                    for channel in 0..<channels {
                        let measured = MeterAccumulators.measure(UnsafePointer(runTable[row + channel]), from: part.from,
                                                                 to: part.from + part.frames)
                        record(channel: channel, peak: measured.peak, clips: measured.clips)
                    }
                }
                at += Int64(part.frames)
            }
            for output in outputs {
                let width = output.output.channels.count
                let levels = measuresWhileGathering ? output.levels : nil
                levels?.reset()
                var measured = false
                for part in parts {
                    var sources: UnsafePointer<UnsafePointer<Float>>?
                    if let row = pieces[part.piece].runs {
                        let runs = UnsafePointer(runTable + row)
                        sources = runs
                        if !output.isEveryChannel {
                            for (index, channel) in output.output.channels.enumerated() { output.runs[index] = runs[channel] }
                            sources = UnsafePointer(output.runs)
                        }
                        measured = true
                    }
                    var gathered = 0
                    while gathered < part.frames {
                        let fitting = try output.room(for: part.frames - gathered)
                        let destination = output.gathering + output.batched * width
                        if let sources {
                            FrameGather.interleave(sources, width: width, from: part.from + gathered, frames: fitting,
                                                   into: destination, levels: levels, streaming: output.gathersInPlace)
                        } else {
                            destination.initialize(repeating: 0, count: fitting * width)
                        }
                        output.batched += fitting
                        gathered += fitting
                    }
                }
                try output.endTurn()
                if let levels, measured {
                    for (index, channel) in output.output.channels.enumerated() {
                        record(channel: channel, peak: levels.peak(index), clips: levels.clips(index))
                    }
                }
            }
            // The pass's direct writes, every file's, to the kernel.
            outputs.first?.output.file.directQueue?.submit()
            if let last = parts.last, let piece = timed(last.piece), let time = piece.frameTime {
                reference = (piece.position, time)
            }
            written += Int64(count)
            framesWrittenCounter.store(written, ordering: .relaxed)
            if let first = outputs.first { framesInFileCounter.store(first.inFile, ordering: .relaxed) }
            commitSegmentOnce()
        }

        /// Writes a pass's pieces, segment by segment.
        var parts: [(piece: Int, from: Int, frames: Int)] = []
        func write(_ pieces: [PassPiece]) throws(CaptureError) {
            var index = 0, from = 0
            while index < pieces.count {
                try prepareSegmentForNextFrame()
                parts.removeAll(keepingCapacity: true)
                var room = segmentEnd - written
                var frames = 0
                while index < pieces.count && room > 0 {
                    let taken = Int(min(Int64(pieces[index].frames - from), room))
                    parts.append((index, from, taken))
                    frames += taken
                    room -= Int64(taken)
                    from += taken
                    if from == pieces[index].frames {
                        index += 1
                        from = 0
                    }
                }
                try put(parts, of: pieces, frames: frames)
            }
        }

        /// Once every file of the segment has a header with its first frames (half a second in),
        /// commits them to the disk in one call: a disk that fails later (goes read-only, loses
        /// power) keeps files that open, rather than names of empty files. The rest is written
        /// back as it comes and made exact when the files close.
        func commitSegmentOnce() {
            guard !segmentCommitted, outputs.allSatisfy(\.hasUpdatedHeader) else { return }
            segmentCommitted = true
            // A file written around the page cache holds its last partial block in memory: on
            // the disk too before the commit, so the first half second is there whole.
            for output in outputs { output.output.file.writeEverything() }
            for output in outputs { output.output.file.waitForEverything() }
            outputs.first?.output.file.commitFileSystem()
        }

        var pieces: [PassPiece] = []
        do throws(CaptureError) {
            while true {
                let progress = source.progress()
                let phase = progress.phase
                let abandoned = abandonFlag.load(ordering: .acquiring)
                let ending = phase == .finished || phase == .missedStart || abandoned || endedByNextTake
                // The take's final length, once it has ended: a stop can fall inside the newest block.
                let end = phase == .finished ? progress.position : Int64.max
                // The first frames go at once: the take log says the take has begun, the files
                // get their metadata.
                if !ending && written > 0 && ring.readableByteCount() < passMinimumBytes {
                    butler.rest()
                    continue
                }
                // The pass: the blocks the ring holds, up to its most frames, as pieces of the
                // take; the ring's bytes are given back once they are written.
                pieces.removeAll(keepingCapacity: true)
                for run in wrappedRuns { run.deallocate() }
                wrappedRuns.removeAll()
                var consumed = 0
                var planned = written
                var rows = 0
                var drained = true
                while true {
                    guard planned - written < pass.most else {
                        drained = false
                        break
                    }
                    let readable = ring.readableByteCount() - consumed
                    guard readable >= CaptureBlockHeader.byteCount else { break }
                    withUnsafeMutableBytes(of: &headerBytes) { raw in
                        ring.peek(into: raw.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: consumed)
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
                    if current && headerBytes.splitPosition >= planned && openSegment != nil {
                        segmentStarts.append((headerBytes.splitPosition, Int(headerBytes.splitBoundary)))
                    }
                    for index in 0..<(current ? Int(headerBytes.spanCount) : 0) {
                        let span = headerBytes.span(index)
                        let frames = Int(min(Int64(span.count), max(0, end - span.position)))
                        guard frames > 0 else { continue }
                        // Channel after channel, `frames` frames from the span's offset in each run
                        // of `stored`, read where they lie.
                        reserveRunTable(rows: rows + 1)
                        let row = rows * channels
                        rows += 1
                        for channel in 0..<channels {
                            let at = consumed + CaptureBlockHeader.byteCount
                                + (channel * stored + Int(span.offset)) * MemoryLayout<Float>.stride
                            let bytes = frames * MemoryLayout<Float>.stride
                            if let run = ring.readPointer(at: at, byteCount: bytes) {
                                runTable[row + channel] = run.assumingMemoryBound(to: Float.self)
                            } else {
                                let wrapped = UnsafeMutablePointer<Float>.allocate(capacity: frames)
                                wrappedRuns.append(wrapped)
                                ring.peek(into: UnsafeMutableRawPointer(wrapped), byteCount: bytes, at: at)
                                runTable[row + channel] = UnsafePointer(wrapped)
                            }
                        }
                        beforeEachBlock?(span.position)
                        if span.position > planned {
                            // Lost: exactly that much silence first, so every later frame stays at
                            // its true place in the take.
                            lostSpans.append(LostSpan(position: planned, frames: span.position - planned))
                            pieces.append(PassPiece(position: planned, frames: Int(span.position - planned)))
                            planned = span.position
                        }
                        pieces.append(PassPiece(position: planned, frames: frames, runs: row,
                                                frameTime: FrameTime.advance(headerBytes.frameTime, by: Int(span.offset))))
                        planned += Int64(frames)
                    }
                    consumed += blockBytes
                }
                try write(pieces)
                ring.commitRead(byteCount: consumed)
                if ending {
                    guard drained else { continue }
                    // Every block is on the ring before the callback publishes `finished`; frames
                    // lost at the very end are padded up to the take's final length.
                    if phase == .finished && !endedByNextTake && end > written {
                        lostSpans.append(LostSpan(position: written, frames: end - written))
                        try write([PassPiece(position: written, frames: Int(end - written))])
                    }
                    break
                }
                if consumed == 0 { butler.rest() }
            }
            // The filters' tails, the files' lengths made exact, the files closed.
            try closeSegment(isLast: true)
        } catch {
            failure = error
            failedFlag.store(true, ordering: .releasing)
            // Everything written so far stays readable: every file is closed, its header
            // declaring every frame it holds.
            try? closeSegment(isLast: true, failed: true)
        }
    }

    /// The take frames (server rate) a file of `fileFrames` frames holds all of: the same without
    /// a converter, else fileFrames × server rate / file rate, rounded down.
    static func takeFrames(heldInFile fileFrames: Int64, converter: SampleRateConverter?) -> Int64 {
        guard let converter, converter.outputRate > 0 else { return fileFrames }
        let (product, overflow) = fileFrames.multipliedReportingOverflow(by: Int64(converter.inputRate))
        return overflow ? fileFrames / Int64(converter.outputRate) * Int64(converter.inputRate) : product / Int64(converter.outputRate)
    }

    /// `spans` cut at take position `end`: those after it dropped, one across it shortened.
    static func spans(_ spans: [LostSpan], endingBy end: Int64) -> [LostSpan] {
        spans.compactMap { span in
            span.position >= end ? nil : LostSpan(position: span.position, frames: min(span.frames, end - span.position))
        }
    }

    /// Gathers `channels` (indices into `planar`'s runs of `stride` frames) for `frames` frames
    /// from frame `from` into interleaved frames at `destination` (`FrameGather`).
    static func gather(planar: UnsafePointer<Float>, stride: Int, from first: Int, frames: Int, channels: [Int],
                       into destination: UnsafeMutablePointer<Float>) {
        let runs = channels.map { planar + $0 * stride }
        runs.withUnsafeBufferPointer { runs in
            FrameGather.interleave(runs.baseAddress!, width: channels.count, from: first, frames: frames, into: destination)
        }
    }

    /// Planar channel blocks to interleaved frames: `planar` holds `channels` runs of `frames`,
    /// written to `interleaved` from frame `offset` on (every channel, in order).
    static func interleave(planar: [Float], into interleaved: inout [Float], at offset: Int = 0, frames: Int,
                           channels: Int) {
        planar.withUnsafeBufferPointer { source in
            interleaved.withUnsafeMutableBufferPointer { destination in
                gather(planar: source.baseAddress!, stride: frames, from: 0, frames: frames, channels: Array(0..<channels),
                       into: destination.baseAddress! + offset * channels)
            }
        }
    }
}
