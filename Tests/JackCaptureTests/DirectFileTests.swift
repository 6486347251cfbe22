import Atomics
import CLinux
import Foundation
import Testing
@testable import JackCapture

/// Files written around the page cache (O_DIRECT through libsndfile's virtual I/O, `DirectFile`),
/// against the same files written through it.
@Suite("Files written around the page cache (O_DIRECT)", .serialized)
struct DirectFileTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "/jcap-direct-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// A sample that differs on every frame and channel, and reaches past full scale now and then
    /// (so integer encodings clip the same way on both paths).
    static func sample(_ frame: Int, _ channel: Int) -> Float {
        Float((frame * 7 + channel * 131) % 2_003) / 1_000 - 1
    }

    /// Writes `frames` frames to a new file at `path` in uneven writes, the header rewritten every
    /// 20,000 frames and a bext chunk first where the container takes one; returns the file, open.
    @discardableResult
    func write(_ path: String, format: FileFormat, io: DiskIO, queue: DirectWriteQueue?, files: Int = 300,
               channels: Int = 3, frames: Int = 100_003, close: Bool = true) throws -> SoundFile {
        let file = try SoundFile.create(path: path, format: format, channels: channels, sampleRate: 48_000,
                                        overwrite: false, io: io, queue: queue, files: files)
        if format.container == .wav || format.container == .rf64 {
            try file.setBroadcastInfo(BroadcastInfo(description: "direct", originator: "jcap", originatorReference: "t1",
                                                    originationDate: "2026-11-24", originationTime: "12:00:00",
                                                    timeReference: 123_456, version: 2))
        }
        let sizes = [1, 7, 4_099, 333, 12_000, 1_024, 20_000]
        var written = 0, turn = 0, sinceHeader = 0
        var samples: [Float] = []
        while written < frames {
            let count = min(sizes[turn % sizes.count], frames - written)
            turn += 1
            samples.removeAll(keepingCapacity: true)
            for frame in written..<written + count {
                for channel in 0..<channels { samples.append(Self.sample(frame, channel)) }
            }
            try samples.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
                try file.write(interleaved: buffer.baseAddress!, frames: count)
            }
            written += count
            sinceHeader += count
            if sinceHeader >= 20_000 {
                file.updateHeader()
                queue?.submit()
                sinceHeader = 0
            }
        }
        if close { try file.close() }
        return file
    }

    /// The file with its PEAK chunk's time stamp zeroed: libsndfile writes the second it writes
    /// the header there (`time(NULL)`), so two files written a second boundary apart differ
    /// in it alone.
    static func withoutPeakTime(_ file: Data) -> Data {
        var bytes = file
        guard let marker = bytes.prefix(8_192).firstRange(of: Data("PEAK".utf8)) else { return bytes }
        let stamp = marker.lowerBound + 12
        if stamp + 4 <= bytes.count { bytes.replaceSubrange(stamp..<stamp + 4, with: Data(count: 4)) }
        return bytes
    }

    static let directFormats = FormatCombinations.valid.map(\.format).filter(\.isWrittenSampleBySample)

    @Test("every format the direct path takes writes the buffered path's file byte for byte", arguments: directFormats)
    func byteIdentical(format: FileFormat) throws {
        let name = "\(format.container.rawValue)-\(format.encoding.rawValue)-\(format.bitDepth ?? 0)-\(format.endianness?.rawValue ?? "")"
        let buffered = folder + "/\(name)-buffered.\(format.container.rawValue)"
        let direct = folder + "/\(name)-direct.\(format.container.rawValue)"
        let plain = try write(buffered, format: format, io: .buffered, queue: nil)
        let around = try write(direct, format: format, io: .direct, queue: DirectWriteQueue())
        #expect(!plain.isDirect)
        #expect(around.isDirect)
        let expected = Self.withoutPeakTime(try Data(contentsOf: URL(fileURLWithPath: buffered)))
        let got = Self.withoutPeakTime(try Data(contentsOf: URL(fileURLWithPath: direct)))
        #expect(got.count == expected.count, "\(name): \(got.count) bytes, buffered \(expected.count)")
        #expect(got == expected, "\(name): first difference at byte \(zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
        #expect(try SoundFile.open(readingFrom: direct).frames == 100_003)
    }

    @Test("the same without io_uring: each block written by pwrite as it comes")
    func byteIdenticalWithoutBatching() throws {
        // A queue whose ring is refused behaves as this one does where io_uring is unavailable.
        let format = try RecordingSettings(bitDepth: 24).resolveFormat(forPath: "take.wav")
        let buffered = folder + "/plain.wav", direct = folder + "/direct.wav"
        try write(buffered, format: format, io: .buffered, queue: nil)
        try write(direct, format: format, io: .direct, queue: DirectWriteQueue(batched: false))
        #expect(try Data(contentsOf: URL(fileURLWithPath: direct)) == Data(contentsOf: URL(fileURLWithPath: buffered)))
    }

    /// 3 channels: no turn fills a buffer. 1021 (4,084-byte frames): buffers fill within turns,
    /// each ending inside a frame.
    @Test("frames gathered in place in a direct float file's buffer are written without a copy, byte for byte as through the page cache",
          arguments: [(3, 100_003), (1_021, 4_001)])
    func gatheredInPlace(channels: Int, total: Int) throws {
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: "take.wav")
        let buffered = folder + "/plain.wav", direct = folder + "/in-place.wav"
        try write(buffered, format: format, io: .buffered, queue: nil, channels: channels, frames: total)
        let queue = DirectWriteQueue()
        let file = try SoundFile.create(path: direct, format: format, channels: channels, sampleRate: 48_000,
                                        overwrite: false, io: .direct, queue: queue, files: 300)
        try file.setBroadcastInfo(BroadcastInfo(description: "direct", originator: "jcap", originatorReference: "t1",
                                                originationDate: "2026-11-24", originationTime: "12:00:00",
                                                timeReference: 123_456, version: 2))
        let frameBytes = channels * 4
        let sizes = [1, 7, 4_099, 333, 12_000, 1_024, 20_000]
        var written = 0, turn = 0, sinceHeader = 0
        var copiedPast: [Int] = [], acrossBufferEnds = 0
        while written < total {
            let count = min(sizes[turn % sizes.count], total - written)
            turn += 1
            var done = 0
            while done < count {
                var frames = count - done
                let room = file.inPlaceFrames(atMost: frames)
                if let room { frames = room.isEmpty ? 1 : min(frames, room.count / channels) }
                var samples = [Float](repeating: 0, count: frames * channels)
                let first = written + done
                try samples.withUnsafeMutableBufferPointer { (own) throws(CaptureError) in
                    let target = room.flatMap { $0.isEmpty ? nil : $0.baseAddress } ?? own.baseAddress!
                    for frame in 0..<frames {
                        for channel in 0..<channels { target[frame * channels + channel] = Self.sample(first + frame, channel) }
                    }
                    try file.write(interleaved: target, frames: frames)
                }
                if room?.isEmpty == true { acrossBufferEnds += 1 }
                if room == nil && (written + done) * frameBytes >= DirectFile.headCapacity { copiedPast.append(written + done) }
                done += frames
            }
            written += count
            sinceHeader += count
            if sinceHeader >= 20_000 {
                file.updateHeader()
                file.directQueue?.submit()
                sinceHeader = 0
            }
        }
        try file.close()
        // Every write past the first few KiB (which header rewrites share) went in place, but
        // for the frame across each end of a buffer the turn filled, alone.
        #expect(copiedPast.isEmpty, "copied, not in place, from frames \(copiedPast)")
        let bufferEnds = channels == 3 ? 0 : total * frameBytes / queue.bufferSize
        #expect(acrossBufferEnds >= bufferEnds - 1 && acrossBufferEnds <= bufferEnds + 1,
                "\(acrossBufferEnds) frames across a buffer's end, \(total * frameBytes) bytes in \(queue.bufferSize)-byte buffers")
        let expected = Self.withoutPeakTime(try Data(contentsOf: URL(fileURLWithPath: buffered)))
        let got = Self.withoutPeakTime(try Data(contentsOf: URL(fileURLWithPath: direct)))
        #expect(got == expected, "first difference at byte \(zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
    }

    @Test("no room in place where libsndfile converts the floats (24-bit, big-endian float) or the file is buffered",
          arguments: ["24:take.wav", "float:take.aiff", "float:buffered.wav"])
    func noRoomInPlace(_ case: String) throws {
        let parts = `case`.split(separator: ":"), name = String(parts[1])
        let settings = parts[0] == "float" ? RecordingSettings(format: .float) : RecordingSettings(format: .pcm, bitDepth: 24)
        let format = try settings.resolveFormat(forPath: name)
        let path = folder + "/" + name
        let file = try write(path, format: format, io: name.hasPrefix("buffered") ? .buffered : .direct,
                             queue: DirectWriteQueue(), frames: 30_000, close: false)
        #expect(file.isDirect == !name.hasPrefix("buffered"))
        #expect(file.inPlaceFrames(atMost: 1_000) == nil)
        try file.close()
    }

    /// The file's size on the disk, and where the space allocated and never written at its end
    /// starts (FIEMAP).
    func sizes(_ path: String) -> (size: Int64, written: Int64) {
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        var info = stat()
        fstat(descriptor, &info)
        return (Int64(info.st_size), jcap_unwritten_tail(descriptor, Int64(info.st_size), Int64(info.st_size)))
    }

    @Test("mid-take, the disk holds the newest header and every frame it declares, then space allocated ahead; repair cuts that off")
    func headerOnDiskMidTake() throws {
        let path = folder + "/open.wav"
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: path)
        let queue = DirectWriteQueue()
        let file = try write(path, format: format, io: .direct, queue: queue, files: 1, close: false)
        file.updateHeader()
        queue.waitForAll()
        // What a reader sees now, as after kill -9: the header declares all 100,003 frames and
        // the disk holds them all, the last partial block written padded with the header.
        let reader = try SoundFile.open(readingFrom: path)
        #expect(reader.frames == 100_003)
        var samples = [Float](repeating: 0, count: 100_003 * 3)
        let read = samples.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: 100_003) }
        #expect(read == 100_003)
        #expect((0..<read).allSatisfy { frame in (0..<3).allSatisfy { samples[frame * 3 + $0] == Self.sample(frame, $0) } })
        // Space is allocated ahead of the writes, unwritten after the last block (and read just
        // now: its zeros are in the page cache, which is why a repair asks FIEMAP, not SEEK_HOLE).
        let open = sizes(path)
        #expect(open.size > open.written, "\(open)")
        #expect(open.written % 4_096 == 0 && open.written > 100_003 * 12)
        // The repair a session runs on a killed take's files cuts the space never written, and
        // counts no zero of the padding as a frame.
        let measured = try TakeFileRepair.measureAndRepair(path: path)
        #expect(measured.frames == 100_003)
        #expect(sizes(path).size == open.written)
        #expect(try SoundFile.open(readingFrom: path).frames == 100_003)
        try file.close()
        #expect(try SoundFile.open(readingFrom: path).frames == 100_003)
    }

    @Test("where the file system cannot tell unwritten space (tmpfs: no FIEMAP), nothing is allocated ahead and the file ends at its last whole block")
    func appendedWhereUnwrittenSpaceCannotBeTold() throws {
        let shared = "/dev/shm/jcap-direct-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let path = shared + "/appended.wav"
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: path)
        let queue = DirectWriteQueue()
        let file = try write(path, format: format, io: .auto, queue: queue, files: 1, close: false)
        try #require(file.isDirect, "tmpfs takes O_DIRECT since Linux 6.6")
        file.updateHeader()
        queue.waitForAll()
        let descriptor = open(path, O_RDONLY)
        let dataStart = try #require(try RawFile(descriptor: descriptor, path: path).waveLayout()).dataStart
        close(descriptor)
        let wholeBlocks = (dataStart + 100_003 * 12) / 4_096 * 4_096
        #expect(sizes(path).size == wholeBlocks)
        // The header declares every frame; a reader stops at the file's end, the repair too (of
        // a copy, as a killed take's file is repaired once its writer is gone: the writer keeps
        // the header it wrote, and does not write it again unchanged).
        let onDisk = (wholeBlocks - dataStart) / 12
        #expect(try SoundFile.open(readingFrom: path).frames == onDisk)
        let killed = shared + "/killed.wav"
        try FileManager.default.copyItem(atPath: path, toPath: killed)
        #expect(try TakeFileRepair.measureAndRepair(path: killed).frames == onDisk)
        try file.close()
        #expect(try SoundFile.open(readingFrom: path).frames == 100_003)
    }

    @Test("killed after whole blocks written past its last header, a direct file is repaired to every whole frame on the disk")
    func blocksPastTheHeader() throws {
        let path = folder + "/past.wav"
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: path)
        let queue = DirectWriteQueue()
        let file = try write(path, format: format, io: .direct, queue: queue, files: 1, channels: 2, frames: 30_001, close: false)
        file.updateHeader()
        // 20,000 frames more, their whole blocks sent as a turn of the writer sends them; the
        // padded block of the header rewrite is among them, now whole.
        var more: [Float] = []
        for frame in 30_001..<50_001 { for channel in 0..<2 { more.append(Self.sample(frame, channel)) } }
        try more.withUnsafeBufferPointer { (buffer) throws(CaptureError) in try file.write(interleaved: buffer.baseAddress!, frames: 20_000) }
        file.sendWrittenBlocks()
        queue.waitForAll()
        let descriptor = open(path, O_RDONLY)
        let dataStart = try #require(try RawFile(descriptor: descriptor, path: path).waveLayout()).dataStart
        close(descriptor)
        let written = sizes(path).written
        #expect(written == (dataStart + 50_001 * 8) / 4_096 * 4_096)
        #expect(try SoundFile.open(readingFrom: path).frames == 30_001)

        let measured = try TakeFileRepair.measureAndRepair(path: path)
        #expect(measured.frames == (written - dataStart) / 8)
        #expect(measured.frames > 49_000)
        let reader = try SoundFile.open(readingFrom: path)
        var samples = [Float](repeating: 0, count: Int(measured.frames) * 2)
        let read = samples.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: Int(measured.frames)) }
        #expect(Int64(read) == measured.frames)
        let wrong = (0..<read).filter { frame in (0..<2).contains { samples[frame * 2 + $0] != Self.sample(frame, $0) } }
        #expect(wrong.isEmpty, "\(wrong.count) frames differ, first \(wrong.first ?? -1)")
        try file.close()
    }

    /// A new mono float WAV in the test's folder, written around the page cache through `queue`.
    func monoDirectFile(_ name: String, queue: DirectWriteQueue) throws -> SoundFile {
        let path = folder + "/" + name
        return try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                    channels: 1, sampleRate: 48_000, overwrite: false, io: .direct, queue: queue)
    }

    /// Writes the signal's `frames` to a mono `file`.
    func writeSignal(_ frames: Range<Int>, to file: SoundFile) throws {
        let samples = frames.map { Self.sample($0, 0) }
        try samples.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
            try file.write(interleaved: buffer.baseAddress!, frames: buffer.count)
        }
    }

    /// Writes `count` turns of `frames` frames of the signal to a mono `file`, each sent as the disk
    /// writer's turn sends them; returns the frames written.
    func writeTurns(of frames: Int, count: Int, to file: SoundFile) throws -> Int {
        for turn in 0..<count {
            try writeSignal(turn * frames..<(turn + 1) * frames, to: file)
            file.sendWrittenBlocks()
        }
        return count * frames
    }

    @Test("the block written padded with a header goes alone in the next write, so no write starts in written space and runs on")
    func paddedBlockGoesAlone() throws {
        let path = folder + "/split.wav"
        let queue = DirectWriteQueue()
        let file = try monoDirectFile("split.wav", queue: queue)
        func write(_ frames: Range<Int>) throws { try writeSignal(frames, to: file) }
        try write(0..<10_001)
        file.updateHeader()                      // whole blocks and the partial block, padded
        let afterHeader = (writes: queue.bufferWrites, bytes: queue.bufferBytesWritten)
        try write(10_001..<20_001)
        file.sendWrittenBlocks()                 // that block alone, then the rest
        #expect(queue.bufferWrites == afterHeader.writes + 2)
        let sent = queue.bufferBytesWritten - afterHeader.bytes
        try write(20_001..<30_001)
        file.sendWrittenBlocks()                 // one write
        #expect(queue.bufferWrites == afterHeader.writes + 3)
        #expect(sent > 4_096 && sent % 4_096 == 0)
        try file.close()
        let reader = try SoundFile.open(readingFrom: path)
        var samples = [Float](repeating: 0, count: 30_001)
        #expect(samples.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: 30_001) } == 30_001)
        #expect(samples.enumerated().allSatisfy { $0.element == Self.sample($0.offset, 0) })
    }

    @Test("a write running from the space allocated first into the space allocated next is cut where they meet")
    func writeCutWhereAllocationsMeet() throws {
        let path = folder + "/allocations.wav"
        let queue = DirectWriteQueue()
        let file = try monoDirectFile("allocations.wav", queue: queue)
        // 30 turns of 10,000 frames (40,000 bytes), 1.2 MB: the first allocation reaches 1 MiB
        // past the first turn's end, so one turn runs past it, into the second allocation.
        let written = try writeTurns(of: 10_000, count: 30, to: file)
        // One write a turn, but for the first (the header's block alone, then the rest) and the
        // one that crosses from the first allocation into the second (two).
        #expect(queue.bufferWrites == 32)
        try file.close()
        let reader = try SoundFile.open(readingFrom: path)
        var samples = [Float](repeating: 0, count: written)
        #expect(samples.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: written) } == written)
        #expect(samples.enumerated().allSatisfy { $0.element == Self.sample($0.offset, 0) })
    }

    @Test("a header rewritten unchanged is not written again, and the writes before a commit wait for nothing")
    func unchangedHeaderAndCommit() throws {
        let path = folder + "/unchanged.wav"
        let queue = DirectWriteQueue()
        let file = try monoDirectFile("unchanged.wav", queue: queue)
        try writeSignal(0..<10_001, to: file)
        file.updateHeader()                      // the blocks, the padded block and the header
        queue.waitForAll()
        let before = queue.writesMade
        file.updateHeader()                      // the padded block again; the header is as it was
        #expect(queue.writesMade == before + 1)
        // A commit's writes are sent, not waited for, until asked.
        try writeSignal(10_001..<20_002, to: file)
        file.updateHeader()
        file.writeEverything()
        #expect(queue.writesOnTheirWay > 0)
        file.waitForEverything()
        #expect(queue.writesOnTheirWay == 0)
        #expect(try SoundFile.open(readingFrom: path).frames == 20_002)
        try file.close()
        #expect(try SoundFile.open(readingFrom: path).frames == 20_002)
    }

    @Test("a new file's header goes to it without a write to the disk, and no space is allocated for it")
    func newFileWritesNothingToTheDisk() throws {
        let path = folder + "/quiet.wav"
        let queue = DirectWriteQueue()
        let file = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                        channels: 8, sampleRate: 48_000, overwrite: false, io: .direct, queue: queue)
        #expect(file.isDirect)
        #expect(queue.writesMade == 0)
        #expect(queue.allocatedAhead.load(ordering: .relaxed) == 0)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_size > 0 && status.st_size < 4_096)
        #expect(Int(status.st_blocks) * 512 <= 4_096, "\(status.st_blocks) blocks of 512 bytes")
        #expect(try SoundFile.open(readingFrom: path).frames == 0)
        try file.close()
    }

    @Test("the space a file holds allocated ahead is counted for the take's disk watch, and given back at the close")
    func allocatedAheadIsCounted() throws {
        #expect(DirectWriteQueue.mostAllocatedAhead(files: 1) == 64 << 20)
        #expect(DirectWriteQueue.mostAllocatedAhead(files: 64) == 4 << 20)
        #expect(DirectWriteQueue.mostAllocatedAhead(files: 1_024) == 1 << 20)
        let path = folder + "/ahead.wav"
        let queue = DirectWriteQueue()
        let file = try monoDirectFile("ahead.wav", queue: queue)
        let written = try writeTurns(of: 10_000, count: 30, to: file)
        queue.waitForAll()
        // From the file's end (its last partial block, not yet sent, included) to its end on the
        // disk, past its frames.
        let descriptor = open(path, O_RDONLY)
        let dataStart = try #require(try RawFile(descriptor: descriptor, path: path).waveLayout()).dataStart
        close(descriptor)
        let end = dataStart + Int64(written) * 4
        let ahead = queue.allocatedAhead.load(ordering: .relaxed)
        #expect(ahead > 0)
        #expect(ahead == sizes(path).size - end, "\(ahead) bytes counted, \(sizes(path).size - end) allocated ahead")
        try file.close()
        #expect(queue.allocatedAhead.load(ordering: .relaxed) == 0)
        #expect(try SoundFile.open(readingFrom: path).frames == Int64(written))
    }

    @Test("a new file on the disk is its header alone, as long as it, and ends so")
    func newFileIsItsHeader() throws {
        let path = folder + "/new.wav"
        let file = try SoundFile.create(path: path, format: try RecordingSettings().resolveFormat(forPath: path),
                                        channels: 2, sampleRate: 48_000, overwrite: false, io: .direct, queue: DirectWriteQueue())
        #expect(file.isDirect)
        let size = try fileSize(path)
        #expect(size > 0 && size < 4_096, "\(size) bytes")
        #expect(try SoundFile.open(readingFrom: path).frames == 0)
        try file.close()
        let closed = try fileSize(path)
        #expect(closed >= size && closed < 4_096, "\(closed) bytes")
        #expect(try SoundFile.open(readingFrom: path).frames == 0)
    }

    private func fileSize(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
    }

    @Test("a file system without O_DIRECT (ramfs): auto writes through the page cache and says why; direct is refused")
    func fallsBack() throws {
        let disk = folder + "/ramfs"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try #require(ChildProcess.run("/bin/mount", ["-t", "ramfs", "ramfs", disk]).status == 0)
        defer { _ = try? ChildProcess.run("/bin/umount", ["-l", disk]) }
        let format = try RecordingSettings().resolveFormat(forPath: "take.wav")
        let file = try write(disk + "/auto.wav", format: format, io: .auto, queue: DirectWriteQueue())
        #expect(!file.isDirect)
        #expect(file.directRefusal == "the file system refuses O_DIRECT")
        #expect(try SoundFile.open(readingFrom: disk + "/auto.wav").frames == 100_003)
        #expect(throws: CaptureError.directIORefused(disk + "/direct.wav", reason: "the file system refuses O_DIRECT")) {
            try write(disk + "/direct.wav", format: format, io: .direct, queue: DirectWriteQueue())
        }
        #expect(!FileManager.default.fileExists(atPath: disk + "/direct.wav"), "nothing is created")
    }

    @Test("a compressed format stays buffered under auto, saying why, and is refused under direct")
    func compressedStaysBuffered() throws {
        let format = try RecordingSettings().resolveFormat(forPath: "take.flac")
        let file = try write(folder + "/auto.flac", format: format, io: .auto, queue: DirectWriteQueue(), channels: 2)
        #expect(!file.isDirect)
        #expect(file.directRefusal == "FLAC is encoded in blocks libsndfile reads back")
        #expect(throws: CaptureError.directIORefused(folder + "/direct.flac", reason: "FLAC is encoded in blocks libsndfile reads back")) {
            try write(folder + "/direct.flac", format: format, io: .direct, queue: DirectWriteQueue(), channels: 2)
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/direct.flac"))
    }

    @Test("a .wav file turns into RF64 past 4 GB on the direct path too, every frame in place",
          .enabled(if: SoundFileTests.freeBytes() > 10_000_000_000, "needs 10 GB of free disk"))
    func switchesToRF64() throws {
        let path = folder + "/big.wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let channels = 8, chunkFrames = 1 << 20
        let queue = DirectWriteQueue()
        let file = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                        channels: channels, sampleRate: 48_000, overwrite: false, io: .direct, queue: queue)
        #expect(file.isDirect)
        var chunk = [Float](repeating: 0, count: chunkFrames * channels)
        let chunks = 129  // 4.03 GiB of audio: just past what a RIFF size can describe
        for index in 0..<chunks {
            chunk[0] = Float(index + 1) / 256  // each chunk's first sample says which it is
            try chunk.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
                try file.write(interleaved: buffer.baseAddress!, frames: chunkFrames)
            }
            if index % 8 == 0 { file.updateHeader() }
            queue.submit()
        }
        try file.close()
        let handle = try #require(FileHandle(forReadingAtPath: path))
        #expect(String(decoding: try handle.read(upToCount: 4) ?? Data(), as: UTF8.self) == "RF64")
        let reader = try SoundFile.open(readingFrom: path)
        #expect(reader.frames == Int64(chunks * chunkFrames))
        var frame = [Float](repeating: 0, count: channels)
        for index in [0, 64, 127, 128] {
            #expect(reader.seek(toFrame: Int64(index * chunkFrames)))
            _ = frame.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: 1) }
            #expect(frame[0] == Float(index + 1) / 256, "chunk \(index) is in place")
        }
    }
}
