// Writer throughput: how many frames per second jcap's disk path sustains with the process
// callback out of the way, next to sf_writef_float alone. Writes about 1 GB per channel count.
//
//   jcap-writer-benchmark [DIRECTORY] [CHANNELS ...]
import Foundation
import JackCapture

let arguments = Array(CommandLine.arguments.dropFirst())
let directory = arguments.first ?? "."
let channelCounts = arguments.count > 1 ? arguments.dropFirst().compactMap { Int($0) } : [2, 64, 512, 1_024]
print("channels\tMB\twriter_MBps\twriter_synced_MBps\traw_MBps\traw_synced_MBps\twriter_frames_per_s\twriter_over_raw")
for channels in channelCounts {
    let frames = Int64(1 << 30) / Int64(channels * 4)
    do {
        let result = try DiskWriterBenchmark.run(channels: channels, frames: frames, directory: directory)
        let megabytes = result.bytes / 1e6
        print([String(channels), String(format: "%.0f", megabytes),
               String(format: "%.0f", megabytes / result.writerSeconds),
               String(format: "%.0f", megabytes / result.writerSyncedSeconds),
               String(format: "%.0f", megabytes / result.rawSeconds),
               String(format: "%.0f", megabytes / result.rawSyncedSeconds),
               String(format: "%.0f", Double(result.frames) / result.writerSeconds),
               String(format: "%.2f", result.rawSeconds / result.writerSeconds)].joined(separator: "\t"))
    } catch {
        print("\(channels)\terror: \(error)")
    }
}
