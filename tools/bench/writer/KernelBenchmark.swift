import Foundation
import JackCapture

/// The writer's per-sample work alone, on blocks laid out as the ring holds them and too many to
/// stay in cache: the transpose into a file's batch (`FrameGather`) and the take's level
/// measurement (`MeterAccumulators.measure`), and the two in one pass as the writer does them, in
/// GB of audio a second.
enum KernelBenchmark {
    static func run(channels: Int, period: Int = 1_024, megabytes: Int = 256)
        -> (gather: Double, gatherMeasuring: Double, measure: Double) {
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
        return (gather, gatherMeasuring, measure)
    }
}
