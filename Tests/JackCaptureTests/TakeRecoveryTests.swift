import Foundation
import Testing
@testable import JackCapture

/// Recovery of takes whose process was killed, on real files written by libsndfile through
/// `SoundFile`: the file is copied while still open, after more frames were written than the last
/// header update describes, which is byte for byte what kill -9 leaves (libsndfile keeps no PCM in
/// user space: every `sf_writef_float` has reached the file when it returns).
@Suite("Take recovery")
struct TakeRecoveryTests {
    let folder: TakeLogFolder

    init() throws {
        folder = try TakeLogFolder("recovery")
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var fileExtension: String
        var format: AudioFormat
        var bitDepth: Int?
        var channels: Int
        var headerFrames: Int
        var writtenFrames: Int

        var testDescription: String {
            ".\(fileExtension) \(format.rawValue)\(bitDepth.map { " \($0)-bit" } ?? "") \(channels) ch, header at \(headerFrames), \(writtenFrames) written"
        }
    }

    /// Sample values that 16-bit, 24-bit, 32-bit and float files all hold exactly, different for
    /// every frame and channel over a take's length, so a frame out of place is seen.
    static func sample(_ frame: Int, _ channel: Int) -> Float {
        Float((frame * 7 + channel * 1_001) % 30_011 - 15_005) / 32_768
    }

    /// Writes `writtenFrames` frames, updating the header after `headerFrames`, and leaves a copy
    /// at `name` of the file as it is before closing: what kill -9 after the last write leaves.
    @discardableResult
    func writeKilledFile(_ name: String, _ test: Case) throws -> Int64 {
        let writing = folder.file("writing-" + name)
        let format = try RecordingSettings(format: test.format, bitDepth: test.bitDepth).resolveFormat(forPath: writing)
        let file = try SoundFile.create(path: writing, format: format, channels: test.channels, sampleRate: 48_000, overwrite: false)
        func write(_ frames: Range<Int>) throws {
            var start = frames.lowerBound
            while start < frames.upperBound {
                let count = min(1_000, frames.upperBound - start)
                var buffer = [Float](repeating: 0, count: count * test.channels)
                for frame in 0..<count {
                    for channel in 0..<test.channels { buffer[frame * test.channels + channel] = Self.sample(start + frame, channel) }
                }
                try buffer.withUnsafeBufferPointer { (samples) throws(CaptureError) in
                    try file.write(interleaved: samples.baseAddress!, frames: count)
                }
                start += count
            }
        }
        try write(0..<test.headerFrames)
        file.updateHeader()
        try write(test.headerFrames..<test.writtenFrames)
        try FileManager.default.copyItem(atPath: writing, toPath: folder.file(name))
        try file.close()
        try FileManager.default.removeItem(atPath: writing)
        return try size(name)
    }

    /// The frames the file's header says its data chunk holds (for RF64, ds64's data size).
    func headerFrames(_ name: String) throws -> Int64? {
        let descriptor = open(folder.file(name), O_RDONLY)
        defer { close(descriptor) }
        guard let layout = try RawFile(descriptor: descriptor, path: folder.file(name)).waveLayout() else { return nil }
        return Int64(layout.headerDataSize) / Int64(layout.blockAlign)
    }

    func size(_ name: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: folder.file(name))[.size] as? NSNumber)?.int64Value ?? -1
    }

    func bytes(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: folder.file(name)))
    }

    /// Every frame of the file, checked against what was written.
    func expectSamples(_ name: String, frames: Int, channels: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = try SoundFile.open(readingFrom: folder.file(name))
        #expect(reader.frames == Int64(frames), sourceLocation: sourceLocation)
        var buffer = [Float](repeating: 0, count: (frames + 10) * channels)
        let read = buffer.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: frames + 10) }
        #expect(read == frames, sourceLocation: sourceLocation)
        var wrong = 0
        for frame in 0..<min(read, frames) {
            for channel in 0..<channels where buffer[frame * channels + channel] != Self.sample(frame, channel) { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) samples differ", sourceLocation: sourceLocation)
        try reader.close()
    }

    func startRecord(_ take: Int, files: [String], tracks: Int = 2) -> TakeLogEntry {
        TakeLogEntry(take: take, status: .recording, startFrame: 77, startTime: "2026-11-22T14:03:07.000000Z",
                     sampleRate: 48_000,
                     files: files.map { TakeLogFile(path: $0, tracks: (1...tracks).map { "in \($0)" }) },
                     tracks: (1...tracks).map { TakeLogTrack(name: "in \($0)", source: "system:capture_\($0)") })
    }

    @Test("a killed take's WAV, RF64 and W64 files are repaired to hold every frame written, with the right samples", arguments: [
        Case(fileExtension: "wav", format: .pcm, bitDepth: 24, channels: 2, headerFrames: 24_000, writtenFrames: 35_999),
        Case(fileExtension: "wav", format: .float, bitDepth: 32, channels: 3, headerFrames: 4_800, writtenFrames: 9_000),
        Case(fileExtension: "wav", format: .pcm, bitDepth: 24, channels: 1, headerFrames: 4_801, writtenFrames: 7_777),
        Case(fileExtension: "wav", format: .pcm, bitDepth: 16, channels: 8, headerFrames: 1_000, writtenFrames: 1_001),
        Case(fileExtension: "rf64", format: .pcm, bitDepth: 24, channels: 2, headerFrames: 24_000, writtenFrames: 35_999),
        Case(fileExtension: "rf64", format: .float, bitDepth: 32, channels: 1, headerFrames: 333, writtenFrames: 5_000),
        Case(fileExtension: "w64", format: .pcm, bitDepth: 24, channels: 2, headerFrames: 24_000, writtenFrames: 35_999),
        Case(fileExtension: "w64", format: .float, bitDepth: 32, channels: 1, headerFrames: 4_801, writtenFrames: 7_777),
    ])
    func repairsKilledFiles(_ test: Case) throws {
        let name = "take-001.\(test.fileExtension)"
        let killedSize = try writeKilledFile(name, test)
        // The precondition the repair is for: readers stop where the last header update said.
        // The precondition the repair is for: the header describes only what the last update saw,
        // so readers stop there (libsndfile reads W64 up to the end of the file whatever its
        // header says, but other readers do not).
        #expect(try headerFrames(name) == Int64(test.headerFrames))
        if test.fileExtension != "w64" {
            #expect(try SoundFile.open(readingFrom: folder.file(name)).frames == Int64(test.headerFrames))
        }

        try folder.appendStartRecordOfKilledProcess(startRecord(1, files: [name], tracks: test.channels))
        let lock = try SessionLock(folder: folder.path)
        defer { lock.release() }
        let recovered = try folder.log.recoverInterruptedTakes()

        #expect(recovered.count == 1)
        #expect(recovered.first?.status == .interrupted)
        #expect(recovered.first?.frames == Int64(test.writtenFrames))
        #expect(recovered.first?.files.map(\.frames) == [Int64(test.writtenFrames)])
        #expect(try size(name) == killedSize)               // nothing truncated, nothing added
        #expect(try headerFrames(name) == Int64(test.writtenFrames))
        try expectSamples(name, frames: test.writtenFrames, channels: test.channels)
        // The log says so, and keeps what the start record said.
        let logged = try folder.log.entry(1)
        #expect(logged.status == .interrupted)
        #expect(logged.frames == Int64(test.writtenFrames))
        #expect(logged.startFrame == 77)
        #expect(logged.tracks.count == test.channels)
        // Nothing left to recover.
        #expect(try folder.log.recoverInterruptedTakes().isEmpty)
    }

    @Test("a partial frame at the end (killed mid-write) stays in the file, outside the audio", arguments: ["wav", "rf64", "w64"])
    func partialFrame(_ fileExtension: String) throws {
        let name = "take-001.\(fileExtension)"
        try writeKilledFile(name, Case(fileExtension: fileExtension, format: .pcm, bitDepth: 24, channels: 2,
                                       headerFrames: 1_000, writtenFrames: 2_500))
        let handle = try #require(FileHandle(forWritingAtPath: folder.file(name)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0x12, 0x34, 0x56, 0x78]))   // 4 of a frame's 6 bytes
        try handle.close()
        let before = try size(name)

        let measured = try TakeFileRepair.measureAndRepair(path: folder.file(name))
        #expect(measured.frames == 2_500)
        #expect(measured.repaired)
        #expect(try size(name) == before)
        try expectSamples(name, frames: 2_500, channels: 2)
        // Repairing again finds the header already right (the partial frame is not a chunk, so
        // the check cannot tell; the same sizes are written again, which changes nothing).
        let again = try TakeFileRepair.measureAndRepair(path: folder.file(name))
        #expect(again.frames == 2_500)
        try expectSamples(name, frames: 2_500, channels: 2)
    }

    @Test("a repaired header is left alone the second time")
    func idempotent() throws {
        let name = "take-001.wav"
        try writeKilledFile(name, Case(fileExtension: "wav", format: .pcm, bitDepth: 24, channels: 2,
                                       headerFrames: 1_000, writtenFrames: 4_000))
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file(name)) == .init(frames: 4_000, sampleRate: 48_000, repaired: true))
        let repaired = try bytes(name)
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file(name)) == .init(frames: 4_000, sampleRate: 48_000, repaired: false))
        #expect(try bytes(name) == repaired)
    }

    /// Found by fuzzing (tools/fuzz take-repair): a killed 16-bit stereo WAV whose header says 25
    /// frames and whose file holds 73 and a byte. The partial frame stays after the data, so the
    /// header never ends where the file does, and every repair wrote (and fsynced) the same sizes
    /// again and said it had repaired the file.
    @Test("a repaired file ending in a partial frame is left alone the second time")
    func idempotentWithPartialFrame() throws {
        let name = "take-001.wav"
        let killed = try #require(Data(base64Encoded: """
            UklGRiQBAABXQVZFZm10IBAAAAABAAIAgLsAAADuAgAEABAAZGF0YWQAAAAAAAAAZACc/8gAOP8sAdT+kAFw/vQBDP5YAqj9
            vAJE/SAD4PyEA3z86AMY/EwEtPuwBFD7FAXs+ngFiPrcBST6QAbA+aQGXPkIB/j4bAeU+NAHMPg0CMz3mAho9/wIBPdgCaD2
            xAk89igK2PWMCnT18AoQ9VQLrPS4C0j0HAzk84AMgPPkDBzzSA248qwNVPIQDvDxdA6M8dgOKPE8D8TwoA9g8AQQ/O9oEJjv
            zBA07zAR0O6UEWzu+BEI7lwSpO3AEkDtJBPc7IgTeOzsExTsUBSw67QUTOsYFejqfBWE6uAVIOpEFrzpqBZY6QwX9OhwF5Do
            1Bcs6DgYyOecGGTnAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==
            """, options: .ignoreUnknownCharacters))
        try killed.write(to: URL(fileURLWithPath: folder.file(name)))
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file(name)) == .init(frames: 73, sampleRate: 48_000, repaired: true))
        let repaired = try bytes(name)
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file(name)) == .init(frames: 73, sampleRate: 48_000, repaired: false))
        #expect(try bytes(name) == repaired)
    }

    @Test("a file closed normally, with a chunk after its audio, is not mistaken for a killed one")
    func trailingChunkIsNotAudio() throws {
        let name = "take-001.wav"
        let path = folder.file(name)
        let file = try SoundFile.create(path: path, format: try RecordingSettings(bitDepth: 24).resolveFormat(forPath: path),
                                        channels: 1, sampleRate: 48_000, overwrite: false)
        let samples = (0..<1_001).map { Self.sample($0, 0) }
        try samples.withUnsafeBufferPointer { (buffer) throws(CaptureError) in try file.write(interleaved: buffer.baseAddress!, frames: 1_001) }
        try file.close()
        // Odd-sized data (3003 bytes): a pad byte, then a LIST chunk, and the RIFF size to match.
        var data = try bytes(name)
        if data.count % 2 == 1 { data.append(0) }
        data.append(contentsOf: Array("LIST".utf8) + [12, 0, 0, 0] + Array("INFOISFT".utf8) + [0, 0, 0, 0])
        let riffSize = UInt32(data.count - 8)
        data.replaceSubrange(4..<8, with: withUnsafeBytes(of: riffSize.littleEndian, Array.init))
        try data.write(to: URL(fileURLWithPath: path))

        let measured = try TakeFileRepair.measureAndRepair(path: path)
        #expect(measured == .init(frames: 1_001, sampleRate: 48_000, repaired: false))
        #expect(try bytes(name) == data)
        try expectSamples(name, frames: 1_001, channels: 1)
    }

    @Test("a missing file counts 0 frames, and the take is as long as its shortest file")
    func missingAndShortestFile() throws {
        let test = Case(fileExtension: "wav", format: .pcm, bitDepth: 24, channels: 1, headerFrames: 1_000, writtenFrames: 6_000)
        try writeKilledFile("take-001-a.wav", test)
        var shorter = test
        shorter.writtenFrames = 5_000
        try writeKilledFile("take-001-b.wav", shorter)
        try writeKilledFile("take-002-a.wav", test)
        try writeKilledFile("take-002-b.wav", shorter)
        try folder.appendStartRecordOfKilledProcess(startRecord(1, files: ["take-001-a.wav", "take-001-b.wav", "take-001-c.wav"], tracks: 1))
        try folder.appendStartRecordOfKilledProcess(startRecord(2, files: ["take-002-a.wav", "take-002-b.wav"], tracks: 1))

        let lock = try SessionLock(folder: folder.path)
        defer { lock.release() }
        let recovered = try folder.log.recoverInterruptedTakes()
        #expect(recovered.map(\.take) == [1, 2])
        #expect(recovered.map(\.frames) == [0, 5_000])
        #expect(recovered.first?.files.map(\.frames) == [6_000, 5_000, 0])
        #expect(recovered.last?.files.map(\.frames) == [6_000, 5_000])
        try expectSamples("take-001-a.wav", frames: 6_000, channels: 1)
        try expectSamples("take-002-b.wav", frames: 5_000, channels: 1)
    }

    @Test("a take this process is recording is not recovered; a take listing a file outside the folder is refused")
    func liveAndUnsafeTakes() throws {
        let log = folder.log
        let lock = try SessionLock(folder: folder.path)
        defer { lock.release() }
        try log.append(startRecord(1, files: ["take-001.wav"]))              // live, in this process
        try folder.appendStartRecordOfKilledProcess(startRecord(2, files: ["../take-002.wav"]))
        #expect(throws: TakeLogError.fileOutsideFolder(take: 2, path: "../take-002.wav")) {
            _ = try log.recoverInterruptedTakes()
        }
        try log.append(TakeLogEntry(take: 2, status: .deleted, sampleRate: 48_000))
        #expect(try log.recoverInterruptedTakes().isEmpty)
        #expect(try log.entry(1).status == .recording)
        // A later tenure of the lock (a restarted session) no longer counts it as live: its
        // process gave the folder up without ending it.
        lock.release()
        let again = try SessionLock(folder: folder.path)
        defer { again.release() }
        #expect(try log.recoverInterruptedTakes().map(\.take) == [1])
        #expect(try log.entry(1).status == .interrupted)
    }

    @Test("a killed take's file reached through a symlink leading out of the folder is refused and left as it is")
    func symlinkOutIsNeverRepaired() throws {
        let test = Case(fileExtension: "wav", format: .pcm, bitDepth: 24, channels: 1, headerFrames: 1_000, writtenFrames: 3_000)
        let outside = try TakeLogFolder("outside")
        defer { try? FileManager.default.removeItem(atPath: outside.path) }
        for name in ["take-001.wav", "take-002.wav"] {
            try writeKilledFile(name, test)
            try FileManager.default.moveItem(atPath: folder.file(name), toPath: outside.file(name))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: outside.file("take-001.wav")))
        let beforeSecond = try Data(contentsOf: URL(fileURLWithPath: outside.file("take-002.wav")))
        // A folder inside the session that is a symlink to another folder, and a file that is one.
        try FileManager.default.createSymbolicLink(atPath: folder.file("sub"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: folder.file("take-002.wav"), withDestinationPath: outside.file("take-002.wav"))
        try folder.appendStartRecordOfKilledProcess(startRecord(1, files: ["sub/take-001.wav"], tracks: 1))
        let lock = try SessionLock(folder: folder.path)
        defer { lock.release() }
        #expect(throws: TakeLogError.fileOutsideFolder(take: 1, path: "sub/take-001.wav")) {
            _ = try folder.log.recoverInterruptedTakes()
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside.file("take-001.wav"))) == before)
        try folder.log.append(TakeLogEntry(take: 1, status: .deleted, sampleRate: 48_000))

        try folder.appendStartRecordOfKilledProcess(startRecord(2, files: ["take-002.wav"], tracks: 1))
        #expect(throws: TakeLogError.fileOutsideFolder(take: 2, path: "take-002.wav")) {
            _ = try folder.log.recoverInterruptedTakes()
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside.file("take-002.wav"))) == beforeSecond)
    }

    /// Every frame libsndfile decodes from the file, checked against what was written; returns
    /// how many it decoded (for a file whose header gives no length).
    func decodedSamplesMatch(_ name: String, channels: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64 {
        let reader = try SoundFile.open(readingFrom: folder.file(name))
        defer { try? reader.close() }
        var buffer = [Float](repeating: 0, count: 4_096 * channels)
        var frame = 0
        var wrong = 0
        while true {
            let read = buffer.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: 4_096) }
            guard read > 0 else { break }
            for index in 0..<read {
                for channel in 0..<channels where buffer[index * channels + channel] != Self.sample(frame + index, channel) { wrong += 1 }
            }
            frame += read
        }
        #expect(wrong == 0, "\(wrong) samples differ", sourceLocation: sourceLocation)
        return Int64(frame)
    }

    @Test("a killed FLAC take counts the frames it decodes, not libsndfile's unknown length")
    func killedFLAC() throws {
        let name = "take-001.flac"
        try writeKilledFile(name, Case(fileExtension: "flac", format: .flac, bitDepth: 16, channels: 2,
                                       headerFrames: 10_000, writtenFrames: 60_000))
        // The precondition: the killed file's STREAMINFO gives no length.
        #expect(try SoundFile.open(readingFrom: folder.file(name)).frames == Int64.max)
        let decoded = try decodedSamplesMatch(name, channels: 2)
        // The encoder holds back at most a block or two; the rest is in the file.
        #expect(decoded > 40_000 && decoded <= 60_000)

        try folder.appendStartRecordOfKilledProcess(startRecord(1, files: [name], tracks: 2))
        let lock = try SessionLock(folder: folder.path)
        defer { lock.release() }
        let recovered = try folder.log.recoverInterruptedTakes()
        #expect(recovered.map(\.frames) == [decoded])
        #expect(recovered.first?.files.map(\.frames) == [decoded])
        #expect(try folder.log.entry(1).frames == decoded)
        #expect(try folder.log.recoverInterruptedTakes().isEmpty)
        // STREAMINFO now says so: every reader knows the length, and the audio is as it was.
        #expect(try SoundFile.open(readingFrom: folder.file(name)).frames == decoded)
        #expect(try decodedSamplesMatch(name, channels: 2) == decoded)
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file(name)) == .init(frames: decoded, sampleRate: 48_000, repaired: false))
    }

    @Test("an interrupted take an earlier jcap logged with libsndfile's unknown length is corrected on the next open")
    func correctsLoggedUnknownLength() throws {
        let name = "take-001.flac"
        try writeKilledFile(name, Case(fileExtension: "flac", format: .flac, bitDepth: 24, channels: 1,
                                       headerFrames: 1_000, writtenFrames: 30_000))
        let decoded = try decodedSamplesMatch(name, channels: 1)
        #expect(decoded > 0)
        var logged = startRecord(1, files: [name], tracks: 1)
        logged.status = .interrupted
        logged.frames = Int64.max
        logged.files[0].frames = Int64.max
        try folder.appendStartRecordOfKilledProcess(logged)
        var complete = startRecord(2, files: [], tracks: 1)
        complete.status = .complete
        complete.frames = 48_000
        try folder.appendStartRecordOfKilledProcess(complete)

        let lock = try SessionLock(folder: folder.path)
        defer { lock.release() }
        let recovered = try folder.log.recoverInterruptedTakes()
        #expect(recovered.map(\.take) == [1])
        let entry = try folder.log.entry(1)
        #expect(entry.status == .interrupted)
        #expect(entry.frames == decoded)
        #expect(entry.files.map(\.frames) == [decoded])
        #expect(try folder.log.entry(2).frames == 48_000)
        #expect(try folder.log.recoverInterruptedTakes().isEmpty)
    }

    @Test("other containers keep the length libsndfile reads, and are not touched")
    func otherContainers() throws {
        let name = "take-001.caf"
        try writeKilledFile(name, Case(fileExtension: "caf", format: .pcm, bitDepth: 24, channels: 2,
                                       headerFrames: 2_000, writtenFrames: 3_000))
        let before = try bytes(name)
        let readable = try SoundFile.open(readingFrom: folder.file(name)).frames
        let measured = try TakeFileRepair.measureAndRepair(path: folder.file(name))
        #expect(measured == .init(frames: readable, sampleRate: 48_000, repaired: false))
        #expect(try bytes(name) == before)

        try Data("not audio".utf8).write(to: URL(fileURLWithPath: folder.file("take-002.wav")))
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file("take-002.wav")) == .init(frames: 0, sampleRate: nil, repaired: false))
        #expect(try bytes("take-002.wav") == Data("not audio".utf8))
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file("take-003.wav")) == .init(frames: 0, sampleRate: nil, repaired: false))
    }

    @Test("IMA ADPCM (a plain WAV): whole blocks are counted, as libsndfile reads them")
    func imaADPCM() throws {
        let name = "take-001.wav"
        try writeKilledFile(name, Case(fileExtension: "wav", format: .imaADPCM, channels: 2,
                                       headerFrames: 4_000, writtenFrames: 20_000))
        let lagging = try SoundFile.open(readingFrom: folder.file(name)).frames
        let measured = try TakeFileRepair.measureAndRepair(path: folder.file(name))
        #expect(measured.repaired)
        #expect(measured.frames > lagging)
        #expect(measured.frames <= 20_000)
        // Whole blocks only (2,041 frames each at 2 channels): at most one block is still in the
        // encoder when the process dies.
        #expect(measured.frames % 2_041 == 0)
        #expect(measured.frames > 20_000 - 2_041)
        #expect(try SoundFile.open(readingFrom: folder.file(name)).frames == measured.frames)
    }

    @Test("a WAV that grew past 4 GB before its header said so becomes RF64 in place")
    func riffPastFourGigabytes() throws {
        let name = "take-001.wav"
        let path = folder.file(name)
        try writeKilledFile(name, Case(fileExtension: "wav", format: .pcm, bitDepth: 24, channels: 2,
                                       headerFrames: 4_800, writtenFrames: 4_800))
        #expect(String(decoding: try bytes(name).prefix(4), as: UTF8.self) == "RIFF")
        // The rest of the audio, as a sparse run of zeros (silence): 4 GiB and a little more.
        let frames: Int64 = 715_829_000
        let dataStart: Int64 = 112
        #expect(try size(name) == dataStart + 4_800 * 6)
        #expect(truncate(path, off_t(dataStart + frames * 6)) == 0)

        let measured = try TakeFileRepair.measureAndRepair(path: path)
        #expect(measured == .init(frames: frames, sampleRate: 48_000, repaired: true))
        #expect(try size(name) == dataStart + frames * 6)
        let header = try #require(FileHandle(forReadingAtPath: path)).readData(ofLength: Int(dataStart))
        #expect(String(decoding: header.prefix(4), as: UTF8.self) == "RF64")
        #expect(String(decoding: header[104..<108], as: UTF8.self) == "data")
        try expectSamples(name, frames: 4_800, channels: 2, prefixOnly: true, total: frames)
    }

    @Test("damaged headers never trap, never change a file's length and never touch its audio")
    func damagedHeaders() throws {
        let name = "take-001.wav"
        for fileExtension in ["wav", "rf64", "w64"] {
            let source = "source.\(fileExtension)"
            try writeKilledFile(source, Case(fileExtension: fileExtension, format: .pcm, bitDepth: 24, channels: 2,
                                             headerFrames: 100, writtenFrames: 300))
            let original = try bytes(source)
            let headerLength = fileExtension == "w64" ? 104 : (fileExtension == "wav" ? 112 : 104)
            var generator = SplitMix(seed: 7)
            for _ in 0..<300 {
                var damaged = original
                for _ in 0..<Int(generator.next() % 4 + 1) {
                    let offset = Int(generator.next() % UInt64(headerLength))
                    damaged[offset] = UInt8(truncatingIfNeeded: generator.next())
                }
                try damaged.write(to: URL(fileURLWithPath: folder.file(name)))
                _ = try? TakeFileRepair.measureAndRepair(path: folder.file(name))
                let after = try bytes(name)
                #expect(after.count == original.count)
                #expect(after[headerLength...] == original[headerLength...])
            }
        }
        // Hand-made damage: a one-byte ADPCM block of 65,535 frames, chunks running off the end.
        var riff = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        riff += Array("fmt ".utf8) + [20, 0, 0, 0, 0x11, 0, 1, 0, 0x80, 0xBB, 0, 0, 0, 0, 0, 0, 1, 0, 4, 0, 2, 0, 0xFF, 0xFF]
        riff += Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 7, count: 64)
        try Data(riff).write(to: URL(fileURLWithPath: folder.file(name)))
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file(name)).frames >= 0)
        try Data(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8) + Array("fmt ".utf8) + [0xFF, 0xFF, 0xFF, 0x7F])
            .write(to: URL(fileURLWithPath: folder.file(name)))
        #expect(try TakeFileRepair.measureAndRepair(path: folder.file(name)) == .init(frames: 0, sampleRate: nil, repaired: false))
    }

    /// A small deterministic generator, so a failure repeats.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("file lengths at another rate are scaled to the take's")
    func scaling() {
        #expect(TakeLog.scale(44_100, from: 44_100, to: 48_000) == 48_000)
        #expect(TakeLog.scale(1_000, from: nil, to: 48_000) == 1_000)
        #expect(TakeLog.scale(1_000, from: 48_000, to: 0) == 1_000)
        #expect(TakeLog.scale(.max, from: 1, to: 768_000) == .max)
    }

    /// The first `frames` frames, when the file holds `total`.
    func expectSamples(_ name: String, frames: Int, channels: Int, prefixOnly: Bool, total: Int64,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = try SoundFile.open(readingFrom: folder.file(name))
        #expect(reader.frames == total, sourceLocation: sourceLocation)
        var buffer = [Float](repeating: 0, count: frames * channels)
        let read = buffer.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: frames) }
        #expect(read == frames, sourceLocation: sourceLocation)
        var wrong = 0
        for frame in 0..<read {
            for channel in 0..<channels where buffer[frame * channels + channel] != Self.sample(frame, channel) { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) samples differ", sourceLocation: sourceLocation)
        try reader.close()
    }
}
