import Atomics
import CLinux
import Foundation
import JackCapture
import JackCaptureTestSignal

/// How fast jcap's disk path writes when nothing else limits it: a producer thread fills the ring
/// in exactly the process callback's block format, as fast as there is room, and the real
/// `DiskWriter` drains it into a float WAV, converting it to another sample rate if asked. The same
/// audio is also written straight through sf_writef_float (never converted), the rate no
/// libsndfile writer can beat through the page cache; and the same bytes written by a plain
/// O_DIRECT loop (1 MiB aligned pwrite(2)s, then fsync), what no writer around the page cache can beat.
enum DiskWriterBenchmark {
    struct Result: Sendable {
        var channels: Int
        /// Frames of the take, at the server's rate.
        var frames: Int64
        var sampleRate: Int
        /// Frames the writer put in the file, at `fileSampleRate`.
        var fileFrames: Int64
        var fileSampleRate: Int
        /// Seconds until the writer had written and closed the file.
        var writerSeconds: Double
        /// ... and until fsync(2) had it on the disk.
        var writerSyncedSeconds: Double
        var rawSeconds: Double
        var rawSyncedSeconds: Double
        /// The O_DIRECT loop, fsync included (nil where the file system refuses O_DIRECT).
        var directLoopSeconds: Double?
        /// Processor time (user and system) the process spent until the writer had closed the
        /// file: the writer's, and the producer's copies into the ring. The kernel's own
        /// threads (a device's workers) are not in it.
        var writerProcessorSeconds: Double
        /// The same for the O_DIRECT loop.
        var directLoopProcessorSeconds: Double?
        /// Whether the writer's file was written around the page cache.
        var writerIsDirect: Bool

        var bytes: Double { Double(frames) * Double(channels) * 4 }
        /// Seconds of the take the writer handles per second: how many times real time it runs.
        var writerRealTimeFactor: Double { Double(frames) / Double(sampleRate) / writerSeconds }
    }

    /// With a `fileSampleRate` other than `sampleRate`, the writer converts with a
    /// `SampleRateConverter` of `quality`.
    static func run(channels: Int, frames: Int64, period: Int = 1_024, sampleRate: Int = 48_000,
                           fileSampleRate: Int? = nil, quality: SampleRateConverterQuality = .best,
                           io: DiskIO = .auto, directory: String) throws -> Result {
        let fileRate = fileSampleRate ?? sampleRate
        let path = directory + "/jcap-writer-benchmark-\(getpid()).wav"
        defer { unlink(path) }
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: path)

        // Through the ring and the disk writer.
        let ring = RingBuffer(capacity: CaptureEngine.ringByteCount(seconds: 4, sampleRate: sampleRate,
                                                                    period: period, channels: channels))
        defer { ring.deallocate() }
        let produced = ManagedAtomic<Int64>(0)
        let done = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            done.load(ordering: .acquiring) ? (.finished, produced.load(ordering: .relaxed)) : (.recording, 0)
        }
        let planar = UnsafeMutablePointer<Float>.allocate(capacity: period * channels)
        defer { planar.deallocate() }
        let table = TestSignal.Table.code()
        defer { table.deallocate() }
        for channel in 0..<channels {
            table.render(into: planar + channel * period, frames: period, start: 0, channel: channel)
        }
        unlink(path)
        let file = try SoundFile.create(path: path, format: format, channels: channels, sampleRate: fileRate,
                                        overwrite: false, io: io, queue: io == .buffered ? nil : DirectWriteQueue())
        let writerIsDirect = file.isDirect
        let converter = fileRate == sampleRate ? nil
            : try SampleRateConverter(channels: channels, inputRate: sampleRate, outputRate: fileRate, quality: quality)
        let writer = DiskWriter(source: source, file: file, converter: converter)
        let processorAtStart = processorSeconds()
        let start = Date()
        writer.start()
        // The producer only reads the block it copies from; the pointer outlives the thread.
        nonisolated(unsafe) let block = planar
        let producer = Thread {
            var header = CaptureBlockHeader(position: 0, frameCount: Int32(period), frameTime: 0)
            let blockBytes = CaptureBlockHeader.blockByteCount(frames: period, channels: channels)
            var position: Int64 = 0
            while position < frames {
                let count = Int(min(Int64(period), frames - position))
                let bytes = CaptureBlockHeader.blockByteCount(frames: count, channels: channels)
                while ring.writableByteCount() < max(bytes, blockBytes) { usleep(500) }
                header = CaptureBlockHeader(position: position, frameCount: Int32(count), frameTime: 0)
                withUnsafeBytes(of: &header) { ring.stage(from: $0.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0) }
                for channel in 0..<channels {
                    ring.stage(from: block + channel * period, byteCount: count * 4,
                               at: CaptureBlockHeader.byteCount + channel * count * 4)
                }
                ring.commitWrite(byteCount: bytes)
                position += Int64(count)
                produced.store(position, ordering: .relaxed)
            }
            done.store(true, ordering: .releasing)
        }
        producer.start()
        writer.finish()
        let writerSeconds = Date().timeIntervalSince(start)
        let writerProcessorSeconds = processorSeconds() - processorAtStart
        sync(path)
        let writerSyncedSeconds = Date().timeIntervalSince(start)
        if let failure = writer.failure { throw failure }
        guard writer.framesWritten == frames else {
            throw CaptureError.writeFailed(path: path, reason: "wrote \(writer.framesWritten) of \(frames) frames")
        }
        let fileFrames = writer.framesInFile
        guard fileFrames == writer.fileFrames(forTakeFrames: frames) else {
            throw CaptureError.writeFailed(path: path, reason: "the file holds \(fileFrames) frames, not \(writer.fileFrames(forTakeFrames: frames))")
        }

        // Straight through libsndfile.
        unlink(path)
        let raw = try SoundFile.create(path: path, format: format, channels: channels, sampleRate: sampleRate,
                                       overwrite: false)
        // Interleaved once, before the clock starts: only the writing is timed.
        var interleaved = [Float](repeating: 0, count: period * channels)
        for frame in 0..<period {
            for channel in 0..<channels { interleaved[frame * channels + channel] = planar[channel * period + frame] }
        }
        let rawStart = Date()
        var written: Int64 = 0
        while written < frames {
            let count = Int(min(Int64(period), frames - written))
            try interleaved.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
                try raw.write(interleaved: buffer.baseAddress!, frames: count)
            }
            written += Int64(count)
        }
        try raw.close()
        let rawSeconds = Date().timeIntervalSince(rawStart)
        sync(path)
        let rawSyncedSeconds = Date().timeIntervalSince(rawStart)
        unlink(path)
        let processorBeforeLoop = processorSeconds()
        let directLoopSeconds = directLoop(path: path, bytes: Int(frames) * channels * 4, pattern: interleaved)
        let directLoopProcessorSeconds = directLoopSeconds.map { _ in processorSeconds() - processorBeforeLoop }
        return Result(channels: channels, frames: frames, sampleRate: sampleRate, fileFrames: fileFrames,
                      fileSampleRate: fileRate, writerSeconds: writerSeconds,
                      writerSyncedSeconds: writerSyncedSeconds, rawSeconds: rawSeconds, rawSyncedSeconds: rawSyncedSeconds,
                      directLoopSeconds: directLoopSeconds, writerProcessorSeconds: writerProcessorSeconds,
                      directLoopProcessorSeconds: directLoopProcessorSeconds, writerIsDirect: writerIsDirect)
    }

    /// Seconds to write `bytes` bytes of `pattern` (repeated) to a new file through O_DIRECT in
    /// 1 MiB aligned writes, then fsync: nil where O_DIRECT is refused.
    static func directLoop(path: String, bytes: Int, pattern: [Float]) -> Double? {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 4_096)
        defer { buffer.deallocate() }
        pattern.withUnsafeBytes { source in
            for offset in stride(from: 0, to: chunk, by: source.count) {
                (buffer + offset).copyMemory(from: source.baseAddress!, byteCount: min(source.count, chunk - offset))
            }
        }
        let start = Date()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | jcap_open_direct, 0o644)
        guard descriptor >= 0 else { return nil }
        defer { unlink(path) }
        var written = 0
        while written < bytes {
            let count = min(chunk, (bytes - written + 4_095) / 4_096 * 4_096)
            guard pwrite(descriptor, buffer, count, off_t(written)) == count else { close(descriptor); return nil }
            written += count
        }
        fsync(descriptor)
        close(descriptor)
        return Date().timeIntervalSince(start)
    }

    /// User and system time of the whole process so far.
    private static func processorSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// fsync(2) of a file: until its data is on the disk.
    private static func sync(_ path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
