import Atomics
import Foundation
import Synchronization
import Testing
@testable import JackCapture

/// A take written to several files (mono and grouped channels) and split into segments, through
/// the real writer fed exactly as the process callback feeds it.
@Suite("Disk writer: one file per track, groups and segments", .serialized)
struct DiskWriterLayoutTests {
    static let channels = 4
    static let period = 256
    /// Where the first block's first frame sits on JACK's clock.
    static let firstFrameTime: UInt32 = 1_000_000
    /// Frames of the take; the last block runs past it (cut by the final position).
    static let takeFrames: Int64 = 2_900
    /// Blocks that never arrive: periods 4 and 5 (frames 1024..<1536), across the segment end at 1200.
    static let lostBlocks: Set<Int> = [4, 5]
    static let segmentLength: Int64 = 1_200

    /// The take's sample for a channel at a position: unique for every pair.
    static func sample(channel: Int, position: Int64) -> Float {
        Float(channel + 1) * 0.1 + Float(position) / 100_000
    }

    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "/jcap-layout-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func path(_ segment: Int, _ label: String) -> String { "\(folder)/seg\(segment)-\(label).wav" }

    /// Mono channel 0, channels 3 and 1 together (in that order), mono channel 2.
    func specs(segment: Int) -> [(String, [Int])] {
        [(path(segment, "a"), [0]), (path(segment, "group"), [3, 1]), (path(segment, "c"), [2])]
    }

    func outputs(segment: Int) throws -> [TakeOutput] {
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: "x.wav")
        return try specs(segment: segment).map { path, channels in
            TakeOutput(file: try SoundFile.create(path: path, format: format, channels: channels.count,
                                                  sampleRate: 48_000, overwrite: false),
                       channels: channels)
        }
    }

    /// Feeds the writer every block of a take of `takeFrames` frames but `lost` ones, as the
    /// process callback does; `segmentStarts` maps a block to the split it carries (position, boundary).
    func feed(_ ring: RingBuffer, takeFrames: Int64, lost: Set<Int>, segmentStarts: [Int: (Int64, Int64)] = [:]) {
        let channels = Self.channels, period = Self.period
        let blockBytes = CaptureBlockHeader.blockByteCount(frames: period, channels: channels)
        let blocks = Int((takeFrames + Int64(period) - 1) / Int64(period))
        var planar = [Float](repeating: 0, count: period * channels)
        for block in 0..<blocks where !lost.contains(block) {
            let position = Int64(block * period)
            for channel in 0..<channels {
                for frame in 0..<period { planar[channel * period + frame] = Self.sample(channel: channel, position: position + Int64(frame)) }
            }
            while ring.writableByteCount() < blockBytes { usleep(500) }
            var header = CaptureBlockHeader(position: position, frameCount: Int32(period),
                                            frameTime: Self.firstFrameTime &+ UInt32(position))
            if let (splitPosition, boundary) = segmentStarts[block] {
                header.splitPosition = splitPosition
                header.splitBoundary = boundary
            }
            withUnsafeBytes(of: &header) { ring.stage(from: $0.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0) }
            planar.withUnsafeBytes { ring.stage(from: $0.baseAddress!, byteCount: planar.count * 4, at: CaptureBlockHeader.byteCount) }
            ring.commitWrite(byteCount: blockBytes)
        }
    }

    /// Every file of every segment holds exactly its channels' frames at its place in the take
    /// (silence where `lost` says).
    func checkFiles(_ segments: [TakeSegment], lost: Range<Int64>) throws {
        for segment in segments {
            #expect(segment.files.map(\.path) == specs(segment: segment.index).map(\.0))
            for (file, (_, channels)) in zip(segment.files, specs(segment: segment.index)) {
                #expect(file.channels == channels)
                #expect(file.frames == segment.frames)
                let sound = try SoundFile.open(readingFrom: file.path)
                #expect(sound.channels == channels.count)
                #expect(sound.frames == segment.frames)
                var samples = [Float](repeating: 0, count: Int(segment.frames) * channels.count)
                _ = samples.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: Int(segment.frames)) }
                for frame in 0..<Int(segment.frames) {
                    let position = segment.position + Int64(frame)
                    for (index, channel) in channels.enumerated() {
                        let expected: Float = lost.contains(position) ? 0 : Self.sample(channel: channel, position: position)
                        let actual = samples[frame * channels.count + index]
                        if actual != expected {
                            Issue.record("\(file.path) frame \(frame) channel \(channel): \(actual), expected \(expected)")
                            return
                        }
                    }
                }
            }
        }
    }

    func makeOutputs(_ start: TakeSegmentStart) throws(CaptureError) -> [TakeOutput] {
        do { return try outputs(segment: start.index) } catch let error as CaptureError { throw error } catch { fatalError("\(error)") }
    }

    @Test("every file holds exactly its channels, split on the exact frame, lost frames silent in place")
    func layoutAndSegments() throws {
        let channels = Self.channels, period = Self.period
        let blockBytes = CaptureBlockHeader.blockByteCount(frames: period, channels: channels)
        let ring = RingBuffer(capacity: blockBytes * 5 + 64)
        defer { ring.deallocate() }
        let finished = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            finished.load(ordering: .acquiring) ? (.finished, Self.takeFrames) : (.recording, 0)
        }
        let writer = DiskWriter(source: source, outputs: try outputs(segment: 0), segmentLength: Self.segmentLength,
                                openSegment: makeOutputs)
        let begun = Mutex<[(segment: Int, frameTime: UInt32?, files: Int)]>([])
        writer.beforeFirstWrite = { segment, outputs, frameTime throws(CaptureError) in
            begun.withLock { $0.append((segment, frameTime, outputs.count)) }
        }
        writer.start()
        feed(ring, takeFrames: Self.takeFrames, lost: Self.lostBlocks)
        finished.store(true, ordering: .releasing)
        writer.finish()

        #expect(writer.failure == nil)
        #expect(writer.framesWritten == Self.takeFrames)
        #expect(writer.lostSpans == [LostSpan(position: 1_024, frames: 512)])
        // Three segments: 0..<1200, 1200..<2400, 2400..<2900.
        let segments = writer.segments
        #expect(segments.map(\.position) == [0, 1_200, 2_400])
        #expect(segments.map(\.frames) == [1_200, 1_200, 500])
        #expect(segments.map(\.isLast) == [false, false, true])
        #expect(segments.map(\.firstFrameTime) == [Self.firstFrameTime, Self.firstFrameTime + 1_200, Self.firstFrameTime + 2_400])
        #expect(segments.map(\.endFrameTime) == [Self.firstFrameTime + 1_200, Self.firstFrameTime + 2_400, Self.firstFrameTime + 2_900])
        #expect(segments[0].lostSpans == [LostSpan(position: 1_024, frames: 176)])
        #expect(segments[1].lostSpans == [LostSpan(position: 0, frames: 336)])
        #expect(segments[2].lostSpans.isEmpty)
        #expect(begun.withLock { $0.map { $0.segment } } == [0, 1, 2])
        #expect(begun.withLock { $0.map { $0.frameTime } } == segments.map(\.firstFrameTime))
        // Channel 3's loudest sample in the last segment is at its last frame.
        #expect(segments[2].channelLevels[3].highestPeak
                == ChannelMeters.decibels(amplitude: Double(Self.sample(channel: 3, position: Self.takeFrames - 1))))
        try checkFiles(segments, lost: 1_024..<1_536)
    }

    @Test("clock-aligned splits: each block's announced position starts a file, of any length, none empty at the end")
    func announcedSplits() throws {
        let channels = Self.channels, period = Self.period
        let takeFrames: Int64 = 2_000
        let blockBytes = CaptureBlockHeader.blockByteCount(frames: period, channels: channels)
        let ring = RingBuffer(capacity: blockBytes * 5 + 64)
        defer { ring.deallocate() }
        let finished = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            finished.load(ordering: .acquiring) ? (.finished, takeFrames) : (.recording, 0)
        }
        let asked = Mutex<[TakeSegmentStart]>([])
        let writer = DiskWriter(source: source, outputs: try outputs(segment: 0)) { (start) throws(CaptureError) in
            asked.withLock { $0.append(start) }
            return try makeOutputs(start)
        }
        writer.start()
        // A split at 700 in its own block (512..<768); at 1300 in block 5, which never arrives
        // (an overrun), so block 6 carries it; at the take's end, 2000 (block 7); and one at 0,
        // before anything (a boundary the take began on), which segmentStarts nothing.
        feed(ring, takeFrames: takeFrames, lost: [5],
             segmentStarts: [0: (0, 1), 2: (700, 2), 6: (1_300, 3), 7: (2_000, 4)])
        finished.store(true, ordering: .releasing)
        writer.finish()

        #expect(writer.failure == nil)
        #expect(writer.framesWritten == takeFrames)
        let segments = writer.segments
        #expect(segments.map(\.position) == [0, 700, 1_300])
        #expect(segments.map(\.frames) == [700, 600, 700])
        #expect(segments.map(\.splitBoundary) == [nil, 2, 3])
        #expect(segments.map(\.isLast) == [false, false, true])
        #expect(asked.withLock { $0 } == [TakeSegmentStart(index: 1, splitBoundary: 2), TakeSegmentStart(index: 2, splitBoundary: 3)])
        #expect(segments.map(\.firstFrameTime) == [Self.firstFrameTime, Self.firstFrameTime + 700, Self.firstFrameTime + 1_300])
        #expect(segments[1].lostSpans == [LostSpan(position: 580, frames: 20)])
        #expect(segments[2].lostSpans == [LostSpan(position: 0, frames: 236)])
        try checkFiles(segments, lost: 1_280..<1_536)
    }

    @Test("a mono file is one copy of its channel's run; a group gathers its channels in file order")
    func gather() {
        let planar: [Float] = [1, 2, 3, 10, 20, 30, 100, 200, 300]
        var out = [Float](repeating: -1, count: 4)
        planar.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { destination in
                DiskWriter.gather(planar: source.baseAddress!, stride: 3, from: 1, frames: 2, channels: [2, 0],
                                  into: destination.baseAddress!)
            }
        }
        #expect(out == [200, 2, 300, 3])
        planar.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { destination in
                DiskWriter.gather(planar: source.baseAddress!, stride: 3, from: 0, frames: 3, channels: [1],
                                  into: destination.baseAddress!)
            }
        }
        #expect(out == [10, 20, 30, 3])
    }
}
