// Writer throughput: how many frames per second jcap's disk path sustains with the process
// callback out of the way, next to sf_writef_float alone. Writes about 1 GB per channel count
// (of 48 kHz audio, as the ring carries it).
//
//   jcap-writer-benchmark [--rate HZ] [--src-quality NAME] [--megabytes N] [--io MODE] [DIRECTORY] [CHANNELS ...]
//
// --io auto|direct|buffered: how the writer's file is written (as jcap's --io; default auto).
// --rate writes the file at HZ, converted by the writer with libsamplerate (--src-quality: best,
// medium, fastest, zero-order-hold, linear; default best); --megabytes sets the audio per row.
import Foundation
import JackCapture

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("jcap-writer-benchmark: \(message)\n".utf8))
    exit(64)
}

var positional: [String] = []
var fileRate: Int?
var quality = SampleRateConverterQuality.best
var megabytes = 1_024
var io = DiskIO.auto
var arguments = Array(CommandLine.arguments.dropFirst())[...]
while let argument = arguments.popFirst() {
    switch argument {
    case "--rate":
        guard let value = arguments.popFirst(), let rate = Int(value), rate > 0 else { fail("--rate needs a rate in Hz") }
        fileRate = rate
    case "--src-quality":
        guard let value = arguments.popFirst(), let named = SampleRateConverterQuality(name: value) else {
            fail("--src-quality takes \(SampleRateConverterQuality.allCases.map(\.name).joined(separator: ", "))")
        }
        quality = named
    case "--kernels":
        for channels in [2, 64, 512, 1_024] {
            let result = KernelBenchmark.run(channels: channels)
            print("\(channels) channels: transpose \(String(format: "%.2f", result.gather)) GB/s, transpose measuring \(String(format: "%.2f", result.gatherMeasuring)) GB/s, measure \(String(format: "%.2f", result.measure)) GB/s, mono files \(String(format: "%.2f", result.monoFiles)) GB/s, into a file's buffers in place \(String(format: "%.2f", result.inPlace)) GB/s, through the batch \(String(format: "%.2f", result.throughBatch)) GB/s")
        }
        exit(0)
    case "--io":
        guard let value = arguments.popFirst(), let mode = DiskIO(rawValue: value) else { fail("--io takes auto, direct or buffered") }
        io = mode
    case "--megabytes":
        guard let value = arguments.popFirst(), let count = Int(value), count > 0 else { fail("--megabytes needs a positive number") }
        megabytes = count
    default:
        positional.append(argument)
    }
}
let directory = positional.first ?? "."
let channelCounts = positional.count > 1 ? positional.dropFirst().compactMap { Int($0) } : [2, 64, 512, 1_024]
if let fileRate {
    print("# file at \(fileRate) Hz, converted from 48000 Hz by libsamplerate (\(quality.name))")
}
print("channels\tMB\tio\twriter_MBps\twriter_synced_MBps\traw_MBps\traw_synced_MBps\todirect_loop_MBps\twriter_frames_per_s\twriter_over_raw\twriter_synced_over_odirect\twriter_x_real_time")
for channels in channelCounts {
    let frames = Int64(megabytes) * (1 << 20) / Int64(channels * 4)
    do {
        let result = try DiskWriterBenchmark.run(channels: channels, frames: frames, fileSampleRate: fileRate,
                                                 quality: quality, io: io, directory: directory)
        let megabytes = result.bytes / 1e6
        print([String(channels), String(format: "%.0f", megabytes), result.writerIsDirect ? "direct" : "buffered",
               String(format: "%.0f", megabytes / result.writerSeconds),
               String(format: "%.0f", megabytes / result.writerSyncedSeconds),
               String(format: "%.0f", megabytes / result.rawSeconds),
               String(format: "%.0f", megabytes / result.rawSyncedSeconds),
               result.directLoopSeconds.map { String(format: "%.0f", megabytes / $0) } ?? "-",
               String(format: "%.0f", Double(result.frames) / result.writerSeconds),
               String(format: "%.2f", result.rawSeconds / result.writerSeconds),
               result.directLoopSeconds.map { String(format: "%.2f", $0 / result.writerSyncedSeconds) } ?? "-",
               String(format: "%.1f", result.writerRealTimeFactor)].joined(separator: "\t"))
    } catch {
        print("\(channels)\terror: \(error)")
    }
}
