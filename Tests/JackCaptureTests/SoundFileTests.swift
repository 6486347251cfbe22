import Foundation
import Testing
@testable import JackCapture

@Suite("Sound files (libsndfile)", .serialized)
struct SoundFileTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "/jcap-soundfile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func bytes(_ path: String, _ range: Range<Int>) throws -> [UInt8] {
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        return [UInt8](try handle.read(upToCount: range.count) ?? Data())
    }

    func fourCC(_ path: String, at offset: Int) throws -> String {
        String(decoding: try bytes(path, offset..<offset + 4), as: UTF8.self)
    }

    /// The WAVE format tag in the fmt chunk (after the RIFF header and, for RF64-capable files, a
    /// JUNK chunk that reserves room for the ds64 chunk).
    func formatTag(_ path: String) throws -> UInt16 {
        let header = try bytes(path, 0..<128)
        var offset = 12
        while offset + 8 <= header.count {
            let id = String(decoding: header[offset..<offset + 4], as: UTF8.self)
            let size = Int(header[offset + 4]) | Int(header[offset + 5]) << 8 | Int(header[offset + 6]) << 16
            if id == "fmt " { return UInt16(header[offset + 8]) | UInt16(header[offset + 9]) << 8 }
            offset += 8 + size
        }
        Issue.record("no fmt chunk in \(path)")
        return 0
    }

    @Test("a .wav file is RIFF/WAVE, WAVE_FORMAT_EXTENSIBLE for more than 2 channels")
    func wavHeader() throws {
        for channels in [2, 8] {
            let path = folder + "/c\(channels).wav"
            let file = try SoundFile.create(path: path, format: try RecordingSettings().resolveFormat(forPath: path),
                                            channels: channels, sampleRate: 48_000, overwrite: false)
            let silence = [Float](repeating: 0, count: 480 * channels)
            try silence.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
                try file.write(interleaved: buffer.baseAddress!, frames: 480)
            }
            try file.close()
            #expect(try fourCC(path, at: 0) == "RIFF")
            #expect(try fourCC(path, at: 8) == "WAVE")
            if channels > 2 { #expect(try formatTag(path) == 0xFFFE) }
            let reread = try SoundFile.open(readingFrom: path)
            #expect(reread.channels == channels)
            #expect(reread.frames == 480)
        }
    }

    @Test("the header describes everything written once updated, before the file is closed")
    func headerWhileWriting() throws {
        let path = folder + "/open.wav"
        let file = try SoundFile.create(path: path, format: try RecordingSettings(bitDepth: 24).resolveFormat(forPath: path),
                                        channels: 2, sampleRate: 48_000, overwrite: false)
        let samples = [Float](repeating: 0.25, count: 48_000 * 2)
        try samples.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
            try file.write(interleaved: buffer.baseAddress!, frames: 48_000)
        }
        file.updateHeader()
        let reader = try SoundFile.open(readingFrom: path)
        #expect(reader.frames == 48_000)
        try file.close()
    }

    @Test("an existing file is never opened for writing without overwrite, and stays as it was")
    func neverOverwrites() throws {
        let path = folder + "/exists.wav"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: CaptureError.outputExists(path)) {
            try SoundFile.create(path: path, format: try RecordingSettings().resolveFormat(forPath: path),
                                 channels: 2, sampleRate: 48_000, overwrite: false)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        // A format libsndfile refuses fails before the existing file is truncated.
        #expect(throws: CaptureError.self) {
            try SoundFile.create(path: folder + "/x.flac", format: try RecordingSettings().resolveFormat(forPath: "x.flac"),
                                 channels: 9, sampleRate: 48_000, overwrite: true)
        }
        _ = try SoundFile.create(path: path, format: try RecordingSettings().resolveFormat(forPath: path),
                                 channels: 2, sampleRate: 48_000, overwrite: true)
        #expect(try fourCC(path, at: 0) == "RIFF")
    }

    @Test("every format round-trips through libsndfile", arguments: FormatCombinations.valid.map(\.format))
    func roundTrip(format: FileFormat) throws {
        let channels = FormatCombinations.channels(for: format)
        let path = folder + "/round-trip." + format.container.rawValue
        defer { unlink(path) }
        let source = RoundTrip.source(for: format, channels: channels)
        let file = try SoundFile.create(path: path, format: format, channels: channels, sampleRate: 48_000, overwrite: false)
        try TestSignals.write(source, to: file, frames: source.count / channels)
        try file.close()
        try RoundTrip.check(path, format: format, source: source, channels: channels)
    }

    /// The size of a file of 2 s of tones and noise in a format.
    func encodedSize(_ settings: RecordingSettings, _ fileExtension: String) throws -> Int {
        let path = folder + "/size-\(UUID().uuidString)." + fileExtension
        defer { unlink(path) }
        let file = try SoundFile.create(path: path, format: try settings.resolveFormat(forPath: path),
                                        channels: 2, sampleRate: 48_000, overwrite: false)
        var signal = TestSignals.sineAndRamp(frames: 96_000, channels: 2)
        var state: UInt32 = 1
        for index in signal.indices {
            state = state &* 1_103_515_245 &+ 12_345
            signal[index] = signal[index] * 0.7 + Float(state >> 16) / 65_536 * 0.2 - 0.1
        }
        signal = TestSignals.quantized(signal, bits: 16)
        try TestSignals.write(signal, to: file, frames: 96_000)
        try file.close()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        return try #require(size)
    }

    @Test("quality changes what the lossy encoders write", arguments: ["ogg", "opus", "mp3"])
    func qualityChangesSize(fileExtension: String) throws {
        let small = try encodedSize(RecordingSettings(quality: 0.1), fileExtension)
        let large = try encodedSize(RecordingSettings(quality: 0.9), fileExtension)
        #expect(Double(large) > 1.5 * Double(small), "\(fileExtension): q0.1 \(small) bytes, q0.9 \(large) bytes")
    }

    @Test("FLAC's compression level changes the file's size")
    func flacCompressionLevel() throws {
        let fastest = try encodedSize(RecordingSettings(bitDepth: 16, compressionLevel: 0), "flac")
        let smallest = try encodedSize(RecordingSettings(bitDepth: 16, compressionLevel: 8), "flac")
        #expect(smallest < fastest, "level 0 \(fastest) bytes, level 8 \(smallest) bytes")
    }

    @Test("a format that cannot be written leaves an existing file untouched, even with overwrite")
    func refusedFormatKeepsExistingFile() throws {
        for (name, channels, rate) in [("keep.mp3", 2, 96_000), ("keep.mp3", 3, 48_000), ("keep.opus", 2, 44_100),
                                       ("keep.wav", 0, 48_000)] {
            let path = folder + "/" + name
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
            let format = try RecordingSettings().resolveFormat(forPath: path)
            #expect(throws: CaptureError.self) {
                try SoundFile.create(path: path, format: format, channels: channels, sampleRate: rate, overwrite: true)
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me", "\(name)")
        }
    }

    @Test("a .wav file turns into RF64 by itself past 4 GB, and every frame reads back",
          .enabled(if: SoundFileTests.freeBytes() > 10_000_000_000, "needs 10 GB of free disk"))
    func switchesToRF64() throws {
        let path = folder + "/big.wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let channels = 8
        let chunkFrames = 1 << 20  // 32 MB of float per write
        let file = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                        channels: channels, sampleRate: 48_000, overwrite: false)
        var chunk = [Float](repeating: 0, count: chunkFrames * channels)
        let chunks = 129  // 129 × 32 MB = 4.03 GiB of audio: just past what a RIFF size can describe
        for index in 0..<chunks {
            chunk[0] = Float(index) / 256  // mark each chunk's first sample
            try chunk.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
                try file.write(interleaved: buffer.baseAddress!, frames: chunkFrames)
            }
        }
        try file.close()
        #expect(try fourCC(path, at: 0) == "RF64")
        let reader = try SoundFile.open(readingFrom: path)
        #expect(reader.frames == Int64(chunks * chunkFrames))
    }

    static func freeBytes() -> Int64 {
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: NSTemporaryDirectory())
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value ?? 0
    }
}

extension SoundFileTests {
    @Test("a channel count beyond 32 bits is refused before anything is created, not a trap", arguments: [Int(Int32.max) + 1, Int.max])
    func hugeChannelCount(channels: Int) throws {
        let path = folder + "/huge-\(channels).wav"
        #expect(throws: CaptureError.self) {
            try SoundFile.create(path: path, format: try RecordingSettings().resolveFormat(forPath: path),
                                 channels: channels, sampleRate: 48_000, overwrite: false)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
