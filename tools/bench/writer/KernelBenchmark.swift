import Foundation
import JackCapture

/// The writer's per-sample work alone, on blocks laid out as the ring holds them and too many to
/// stay in cache: the transpose into a file's batch (`FrameGather`) and the take's level
/// measurement (`MeterAccumulators.measure`), and the two in one pass as the writer does them; and
/// a session's mono files, gathered as its writer does, a file at a time over a pass of half a
/// second of blocks, each into a buffer of a 16 MiB pool; and an interleaved file's transpose,
/// measuring, into its direct buffers, in place or through the batch and a copy (as the writer
/// did before it gathered in place). In GB of audio a second.
enum KernelBenchmark {
    static func run(channels: Int, period: Int = 1_024, megabytes: Int = 256)
        -> (gather: Double, gatherMeasuring: Double, measure: Double, monoFiles: Double, inPlace: Double,
            throughBatch: Double) {
        let blockSamples = channels * period
        let blocks = max(2, megabytes << 20 / (blockSamples * 4))
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: blocks * blockSamples)
        defer { memory.deallocate() }
        for index in 0..<(blocks * blockSamples) { memory[index] = Float(index % 1_000) / 1_000 }
        let batchFrames = max(1, (256 << 10) / (channels * 4))
        let batch = UnsafeMutablePointer<Float>.allocate(capacity: batchFrames * channels)
        defer { batch.deallocate() }
        let runs = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: channels)
        defer { runs.deallocate() }
        let bytes = Double(blocks * blockSamples * 4)

        var start = Date()
        for block in 0..<blocks {
            for channel in 0..<channels { runs[channel] = UnsafePointer(memory + block * blockSamples + channel * period) }
            var frame = 0
            while frame < period {
                let frames = min(batchFrames, period - frame)
                FrameGather.interleave(runs, width: channels, from: frame, frames: frames, into: batch)
                frame += frames
            }
        }
        let gather = bytes / Date().timeIntervalSince(start) / 1e9
        let levels = FrameGather.Levels(width: channels)
        defer { levels.deallocate() }
        start = Date()
        for block in 0..<blocks {
            for channel in 0..<channels { runs[channel] = UnsafePointer(memory + block * blockSamples + channel * period) }
            levels.reset()
            var frame = 0
            while frame < period {
                let frames = min(batchFrames, period - frame)
                FrameGather.interleave(runs, width: channels, from: frame, frames: frames, into: batch, levels: levels)
                frame += frames
            }
        }
        let gatherMeasuring = bytes / Date().timeIntervalSince(start) / 1e9
        var sink: Float = 0
        start = Date()
        for block in 0..<blocks {
            for channel in 0..<channels {
                sink += MeterAccumulators.measure(memory + block * blockSamples + channel * period, from: 0, to: period).peak
            }
        }
        let measure = bytes / Date().timeIntervalSince(start) / 1e9
        if sink < 0 { print(sink) }

        let passBlocks = 24
        let bufferFloats = (128 << 10) / 4
        let poolBuffers = (16 << 20) / (bufferFloats * 4)
        let pool = UnsafeMutablePointer<Float>.allocate(capacity: poolBuffers * bufferFloats)
        defer { pool.deallocate() }
        pool.initialize(repeating: 0, count: poolBuffers * bufferFloats)
        let monoLevels = FrameGather.Levels(width: 1)
        defer { monoLevels.deallocate() }
        var turn = 0
        start = Date()
        var passStart = 0
        while passStart < blocks {
            let passEnd = min(blocks, passStart + passBlocks)
            for channel in 0..<channels {
                let destination = pool + (turn % poolBuffers) * bufferFloats
                turn += 1
                monoLevels.reset()
                for block in passStart..<passEnd {
                    runs[0] = UnsafePointer(memory + block * blockSamples + channel * period)
                    FrameGather.interleave(runs, width: 1, from: 0, frames: period,
                                           into: destination + (block - passStart) * period, levels: monoLevels)
                }
                sink += monoLevels.peak(0)
            }
            passStart = passEnd
        }
        let monoFiles = bytes / Date().timeIntervalSince(start) / 1e9
        if sink < 0 { print(sink) }

        // An interleaved file's frames measured on their way into its direct buffers (2 MiB each,
        // a pool of 16 MiB), gathered there in place (with streaming stores, as the writer does),
        // or into the batch and copied there. The audio starts where a float WAV's header (72
        // bytes and 8 a channel) leaves it, as in the writer, not on a 32-byte boundary.
        let fileBuffers = 8
        let fileBufferFloats = (2 << 20) / 4
        let headerFloats = (72 + 8 * channels) / 4
        let filePool = UnsafeMutablePointer<Float>.allocate(capacity: fileBuffers * fileBufferFloats + headerFloats)
        defer { filePool.deallocate() }
        filePool.initialize(repeating: 0, count: fileBuffers * fileBufferFloats + headerFloats)
        let files = filePool + headerFloats
        var intoFile: [Double] = []
        for inPlace in [true, false] {
            var filled = 0
            start = Date()
            for block in 0..<blocks {
                for channel in 0..<channels { runs[channel] = UnsafePointer(memory + block * blockSamples + channel * period) }
                levels.reset()
                var frame = 0
                while frame < period {
                    let frames = min(batchFrames, period - frame)
                    let count = frames * channels
                    if filled + count > fileBuffers * fileBufferFloats { filled = 0 }
                    let destination = files + filled
                    FrameGather.interleave(runs, width: channels, from: frame, frames: frames,
                                           into: inPlace ? destination : batch, levels: levels, streaming: inPlace)
                    if !inPlace { destination.update(from: batch, count: count) }
                    filled += count
                    frame += frames
                }
            }
            intoFile.append(bytes / Date().timeIntervalSince(start) / 1e9)
        }
        return (gather, gatherMeasuring, measure, monoFiles, intoFile[0], intoFile[1])
    }
}
