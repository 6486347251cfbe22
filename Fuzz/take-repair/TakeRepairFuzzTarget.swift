import FuzzDriver
import Foundation
@testable import JackCapture

/// The repair of a killed take's file (`TakeFileRepair`), from the file's bytes: any file must
/// be measured (and its header repaired) or refused with a `TakeLogError`, never trap, hang or
/// grow memory without bound; and a second repair finds nothing more to do and the same frames
/// (repair is safe to run twice).
@_cdecl("LLVMFuzzerTestOneInput")
public func takeRepairFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    // The container is told by the bytes; the name only matters to libsndfile's guesses.
    let path = takeRepairFolder + (size > 0 && data![0] == UInt8(ascii: "f") ? "/take-1.flac" : "/take-1.wav")
    guard FileManager.default.createFile(atPath: path, contents: bytes) else { fatalError("cannot write \(path)") }
    defer { unlink(path) }
    guard let first = try? TakeFileRepair.measureAndRepair(path: path) else { return 0 }
    guard let second = try? TakeFileRepair.measureAndRepair(path: path) else {
        fatalError("a repaired file cannot be measured again")
    }
    guard !second.repaired, second.frames == first.frames else {
        fatalError("a second repair differs: \(first) then \(second)")
    }
    return 0
}

/// A folder of this process's in the scratch folder tools/fuzz gives (JCAP_FUZZ_SCRATCH, else /tmp).
let takeRepairFolder: String = {
    let folder = (ProcessInfo.processInfo.environment["JCAP_FUZZ_SCRATCH"] ?? "/tmp") + "/take-repair-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}()

/// SwiftPM links an executable's `main` to `fuzz_take_repair_main`: libFuzzer's driver runs from there.
@_cdecl("fuzz_take_repair_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv, takeRepairFuzzTarget)
}
