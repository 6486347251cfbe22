// Writer throughput: how many frames per second jcap's disk path sustains with the process
// callback out of the way, next to sf_writef_float alone. Writes about 1 GB per channel count
// (of 48 kHz audio, as the ring carries it). writer_cpu_s: the process's processor time until the
// writer had closed its file (its producer's copies into the ring included); odirect_loop_cpu_s:
// the O_DIRECT loop's.
//
//   jcap-writer-benchmark [--rate HZ] [--src-quality NAME] [--megabytes N] [--io MODE] [DIRECTORY] [CHANNELS ...]
//   jcap-writer-benchmark --kernels
//
// --io auto|direct|buffered: how the writer's file is written (as jcap's --io; default auto).
// --rate writes the file at HZ, converted by the writer with libsamplerate (--src-quality: best,
// medium, fastest, zero-order-hold, linear; default best); --megabytes sets the audio per row.
import Foundation
import JackCapture

let usage = "usage: jcap-writer-benchmark [--rate HZ] [--src-quality NAME] [--megabytes N] [--io auto|direct|buffered] [DIRECTORY] [CHANNELS ...], or --kernels"

/// One line on standard error and the exit code: 64 for a wrong argument (EX_USAGE), 66 for a
/// directory that is not there (EX_NOINPUT).
func fail(_ message: String, code: Int32 = 64) -> Never {
    FileHandle.standardError.write(Data("jcap-writer-benchmark: \(message)\n".utf8))
    exit(code)
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
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        // A word that looks like an option is not taken for the directory.
        if argument.hasPrefix("-") { fail("unknown option \(argument) (--help shows the usage)") }
        positional.append(argument)
    }
}
let directory = positional.first ?? "."
var isDirectory: ObjCBool = false
guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
    fail("no directory \(directory) to write the test files in", code: 66)
}
let channelCounts = positional.count > 1
    ? positional.dropFirst().map { word -> Int in
        guard let count = Int(word), (1...1_024).contains(count) else {
            fail("a channel count is a whole number from 1 to 1024, not \(word)")
        }
        return count
    }
    : [2, 64, 512, 1_024]
if let fileRate {
    print("# file at \(fileRate) Hz, converted from 48000 Hz by libsamplerate (\(quality.name))")
}
print("channels\tMB\tio\twriter_MBps\twriter_synced_MBps\traw_MBps\traw_synced_MBps\todirect_loop_MBps\twriter_frames_per_s\twriter_over_raw\twriter_synced_over_odirect\twriter_x_real_time\twriter_cpu_s\todirect_loop_cpu_s")
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
               String(format: "%.1f", result.writerRealTimeFactor),
               String(format: "%.2f", result.writerProcessorSeconds),
               result.directLoopProcessorSeconds.map { String(format: "%.2f", $0) } ?? "-"].joined(separator: "\t"))
    } catch {
        print("\(channels)\terror: \(error)")
    }
}
