import FuzzDriver
import Foundation
@testable import JackCapture

/// The take log reader, from the bytes of a session folder's `takes.jsonl`: reading, the next
/// take number, recovery of interrupted takes (under the session lock, as a session does before
/// its first take) and `jcap takes`' listing must take any bytes without a trap, a hang or
/// unbounded memory; a log that cannot be read is a `TakeLogError`. Read as a session reads it,
/// its first half before the rest was appended (and the last input's bytes before that), the
/// log must read and number its takes as a reader that never read it does (`TakeLogScan`).
@_cdecl("LLVMFuzzerTestOneInput")
public func takeLogFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let log = takeLogScratch.log
    writeScratchLog(bytes.prefix(size / 2))
    _ = try? log.read()
    writeScratchLog(bytes)
    let fresh = TakeLog(folder: log.folder)
    let (again, first) = (Result { try log.read() }, Result { try fresh.read() })
    guard String(describing: again) == String(describing: first) else {
        fatalError("read again: \(again)\nread afresh: \(first)")
    }
    guard log.nextTakeNumber() == fresh.nextTakeNumber() else {
        fatalError("next take \(log.nextTakeNumber()) read again, \(fresh.nextTakeNumber()) afresh")
    }
    _ = try? log.entries()
    guard let reading = try? log.read() else { return 0 }
    _ = reading.skipped.map(\.description)
    _ = TakeListing.lines(reading.entries, defaultSampleRate: 48_000, timeZone: TimeZone(identifier: "UTC")!)
    // The JSON listing is spelled as the log is, so it reads back as the same takes.
    let json = TakeListing.json(reading.entries)
    guard let listed = try? JSONDecoder().decode([TakeLogEntry].self, from: Data(json.utf8)) else {
        fatalError("the JSON listing does not read back: \(json)")
    }
    guard listed.map(\.take) == reading.entries.map(\.take) else { fatalError("the JSON listing lists other takes: \(json)") }
    _ = try? log.recoverInterruptedTakes()
    return 0
}

func writeScratchLog(_ bytes: Data) {
    guard FileManager.default.createFile(atPath: takeLogScratch.log.path, contents: bytes) else {
        fatalError("cannot write \(takeLogScratch.log.path)")
    }
}

/// A session folder of this process's in the scratch folder tools/fuzz gives
/// (JCAP_FUZZ_SCRATCH, else /tmp), locked for the whole run.
let takeLogScratch: (log: TakeLog, lock: SessionLock) = {
    let folder = (ProcessInfo.processInfo.environment["JCAP_FUZZ_SCRATCH"] ?? "/tmp") + "/take-log-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    guard let lock = try? SessionLock(folder: folder) else { fatalError("cannot lock \(folder)") }
    return (TakeLog(folder: folder), lock)
}()

/// SwiftPM links an executable's `main` to `fuzz_take_log_main`: libFuzzer's driver runs from there.
@_cdecl("fuzz_take_log_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv, takeLogFuzzTarget)
}
