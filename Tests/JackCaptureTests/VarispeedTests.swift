import Foundation
import Testing
@testable import JackCapture

/// Playback at a rate without JACK: the rate's integer ratio, the file position of each output
/// frame, where blocks are split, and the reader's blocks compared with libsamplerate run
/// offline on the same file.
@Suite("Varispeed playback (the reader's converter)", .serialized)
struct VarispeedTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "/jcap-varispeed-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    @Test("a rate is clamped to 0.5...2, kept to 1/10000, and becomes integer converter rates")
    func rates() {
        #expect(PlaybackRate(3).value == 2)
        #expect(PlaybackRate(0.2).value == 0.5)
        #expect(PlaybackRate(.nan) == .normal)
        #expect(PlaybackRate(1.23456).tenThousandths == 12_346)
        #expect(PlaybackRate.normal.converterRates(fileRate: 48_000, serverRate: 48_000) == nil, "played as it is")
        #expect(PlaybackRate(2).converterRates(fileRate: 48_000, serverRate: 48_000)! == (2, 1))
        #expect(PlaybackRate(0.5).converterRates(fileRate: 48_000, serverRate: 48_000)! == (1, 2))
        #expect(PlaybackRate.normal.converterRates(fileRate: 44_100, serverRate: 48_000)! == (147, 160))
        #expect(PlaybackRate(1.5).converterRates(fileRate: 44_100, serverRate: 48_000)! == (441, 320))
    }

    @Test("a pass maps output frames to file frames, exactly at its ends")
    func positions() {
        // Rate 2 from file frame 1000, 9001 frames: output [0, 4501).
        let fast = VarispeedSegment(inputStart: 0, fileStart: 1_000, length: 9_001, inputRate: 2, outputRate: 1)
        #expect(fast.outputStart == 0)
        #expect(fast.outputEnd == 4_501)
        #expect([0, 1, 2, 4_500, 4_501].map { fast.filePosition(atOutput: $0) } == [1_000, 1_002, 1_004, 10_000, 10_001])
        // Rate 0.5: each file frame twice, the pass after 3 frames of input.
        let slow = VarispeedSegment(inputStart: 3, fileStart: 0, length: 10, inputRate: 1, outputRate: 2)
        #expect(slow.outputStart == 6)
        #expect(slow.outputEnd == 26)
        let twice: [Int64] = (6...26).map { slow.filePosition(atOutput: $0) }
        #expect(twice == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10])
        // Ratio 1 (a rate that rounds to 1 cannot reach a converter, but the arithmetic holds).
        let same = VarispeedSegment(inputStart: 0, fileStart: 5, length: 100, inputRate: 7, outputRate: 7)
        let identity: [Int64] = (0...100).map { same.filePosition(atOutput: Int64($0)) }
        let expected: [Int64] = (0...100).map { 5 + Int64($0) }
        #expect(identity == expected)
        // 44.1 kHz on 48 kHz: never backwards, ends exact.
        let up = VarispeedSegment(inputStart: 1_234, fileStart: 0, length: 44_100, inputRate: 147, outputRate: 160)
        #expect(up.outputEnd - up.outputStart == 48_000)
        let mapped = (up.outputStart...up.outputEnd).map { up.filePosition(atOutput: $0) }
        #expect(mapped.first == 0 && mapped.last == 44_100)
        #expect(zip(mapped, mapped.dropFirst()).allSatisfy { $0 <= $1 && $1 - $0 <= 1 })
    }

    @Test("a block is full, or shorter only where a pass ends")
    func blockSplitting() {
        #expect(VarispeedSegment.nextBlockFrames(pendingFrames: 5_000, toPassEnd: 10_000, blockFrames: 4_096) == 4_096)
        #expect(VarispeedSegment.nextBlockFrames(pendingFrames: 4_000, toPassEnd: 10_000, blockFrames: 4_096) == 0, "wait for more")
        #expect(VarispeedSegment.nextBlockFrames(pendingFrames: 5_000, toPassEnd: 300, blockFrames: 4_096) == 300, "split at the wrap")
        #expect(VarispeedSegment.nextBlockFrames(pendingFrames: 200, toPassEnd: 300, blockFrames: 4_096) == 0)
        #expect(VarispeedSegment.nextBlockFrames(pendingFrames: 300, toPassEnd: 300, blockFrames: 4_096) == 300, "the end")
        #expect(VarispeedSegment.nextBlockFrames(pendingFrames: 10, toPassEnd: 0, blockFrames: 4_096) == 0)
    }

    // MARK: The reader, on a ring, without JACK

    /// A mono float file of a slow sine around 0.5 (never zero), at `sampleRate`.
    func sineFile(_ name: String, frames: Int, sampleRate: Int = 48_000) throws -> (path: String, samples: [Float]) {
        let path = folder + "/" + name
        let samples = (0..<frames).map { Float(0.5 + 0.25 * sin(2 * Double.pi * 100 * Double($0) / Double(sampleRate))) }
        let file = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                        channels: 1, sampleRate: sampleRate, overwrite: false)
        try samples.withUnsafeBufferPointer { try file.write(interleaved: $0.baseAddress!, frames: frames) }
        try file.close()
        return (path, samples)
    }

    /// libsamplerate offline, in one go, through the same wrapper and quality.
    func offline(_ input: [Float], inputRate: Int, outputRate: Int) throws -> [Float] {
        let converter = try SampleRateConverter(channels: 1, inputRate: inputRate, outputRate: outputRate, quality: .best)
        var output: [Float] = []
        try input.withUnsafeBufferPointer { buffer throws(CaptureError) in
            try converter.convert(buffer.baseAddress!, frames: input.count) { output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1)) }
        }
        try converter.finish { output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1)) }
        return output
    }

    struct Block {
        let header: PlaybackBlockHeader
        let samples: [Float]
    }

    /// Runs the reader for one generation until its end block, draining the ring as it fills.
    func blocks(of path: String, from frame: Int64 = 0, loops: Int = 0, rate: PlaybackRate,
                serverRate: Int = 48_000) throws -> [Block] {
        let file = try SoundFile.open(playing: path)
        let blockBytes = PlaybackRing.blockByteCount(channels: 1)
        let ring = RingBuffer(capacity: 4 * blockBytes)
        defer { ring.deallocate() }
        let reader = PlaybackFileReader(file: file, ring: ring, serverRate: serverRate)
        let seek = SeekRequest(generation: 1, frame: frame)
        var blocks: [Block] = []
        for _ in 0..<100_000 {
            _ = reader.fillOne(seek: seek, numberOfLoops: loops, rate: rate)
            while ring.readableByteCount() >= blockBytes {
                var header = PlaybackBlockHeader(generation: 0, position: 0, frames: 0)
                withUnsafeMutableBytes(of: &header) { ring.peek(into: $0.baseAddress!, byteCount: PlaybackBlockHeader.fieldByteCount, at: 0) }
                let base = try #require(ring.readPointer(at: 0, byteCount: blockBytes))
                let samples = (base + PlaybackBlockHeader.byteCount).assumingMemoryBound(to: Float.self)
                blocks.append(Block(header: header, samples: Array(UnsafeBufferPointer(start: samples, count: Int(header.frames)))))
                ring.commitRead(byteCount: blockBytes)
                if header.isEnd { return blocks }
            }
        }
        Issue.record("no end block")
        return blocks
    }

    @Test("rate 2: round(F / 2) frames, libsamplerate's offline output sample for sample, positions from the seek to the end")
    func doubleSpeed() throws {
        let (path, samples) = try sineFile("fast.wav", frames: 30_001)
        let played = try blocks(of: path, rate: PlaybackRate(2))
        let output = played.flatMap(\.samples)
        #expect(output.count == 15_001, "round(30001 / 2)")
        #expect(output == (try offline(samples, inputRate: 2, outputRate: 1)))
        #expect(played.first?.header.position == 0)
        #expect(played.dropLast().last?.header.endPosition == 30_001)
        #expect(zip(played, played.dropFirst()).allSatisfy { $0.header.endPosition == $1.header.position }, "contiguous")
        #expect(played.dropLast(2).allSatisfy { $0.header.frames == 4_096 }, "full blocks but the last")

        let seeked = try blocks(of: path, from: 10_000, rate: PlaybackRate(2))
        #expect(seeked.first?.header.position == 10_000, "a seek starts on the frame asked for")
        #expect(seeked.flatMap(\.samples) == (try offline(Array(samples[10_000...]), inputRate: 2, outputRate: 1)))
    }

    @Test("rate 1 at the server's rate: no converter, the file's own samples in full blocks")
    func asItIs() throws {
        let (path, samples) = try sineFile("same.wav", frames: 10_000)
        let played = try blocks(of: path, rate: PlaybackRate(1.00001))
        #expect(played.flatMap(\.samples) == samples)
        #expect(played.map(\.header.frames) == [4_096, 4_096, 1_808, 0])
        #expect(played.allSatisfy { $0.header.endPosition - $0.header.position == $0.header.frames })
    }

    @Test("rate 0.5 doubles the length; 44.1 kHz on 48 kHz is round(F × 48000 / 44100)")
    func slowAndOtherRates() throws {
        let (path, samples) = try sineFile("slow.wav", frames: 10_001)
        let slow = try blocks(of: path, rate: PlaybackRate(0.5)).flatMap(\.samples)
        #expect(slow.count == 20_002)
        #expect(slow == (try offline(samples, inputRate: 1, outputRate: 2)))

        let (cd, cdSamples) = try sineFile("cd.wav", frames: 44_100 + 7, sampleRate: 44_100)
        let converted = try blocks(of: cd, rate: .normal).flatMap(\.samples)
        #expect(converted.count == Int(SampleRateConverter.outputLength(forInputFrames: 44_107, inputRate: 44_100, outputRate: 48_000)))
        #expect(converted.count == 48_008)
        #expect(converted == (try offline(cdSamples, inputRate: 147, outputRate: 160)))
    }

    @Test("loops at a rate: one stream through the file three times, a block split at each wrap")
    func seamlessLoops() throws {
        let (path, samples) = try sineFile("loop.wav", frames: 9_999)
        let played = try blocks(of: path, loops: 2, rate: PlaybackRate(1.5))
        let output = played.flatMap(\.samples)
        let ratio = try #require(PlaybackRate(1.5).converterRates(fileRate: 48_000, serverRate: 48_000))
        #expect(output.count == Int(SampleRateConverter.outputLength(forInputFrames: 3 * 9_999, inputRate: ratio.input,
                                                                       outputRate: ratio.output)))
        #expect(output == (try offline(samples + samples + samples, inputRate: ratio.input, outputRate: ratio.output)),
                "no flush at the wraps: the same as converting the three copies in one go")
        let spans = played.dropLast().map { ($0.header.position, $0.header.endPosition) }
        #expect(spans.allSatisfy { $0.0 < $0.1 && $0.1 <= 9_999 }, "no block spans a wrap")
        #expect(spans.filter { $0.0 == 0 }.count == 3, "three passes from frame 0")
        #expect(spans.filter { $0.1 == 9_999 }.count == 3, "three passes to the end")
    }
}
