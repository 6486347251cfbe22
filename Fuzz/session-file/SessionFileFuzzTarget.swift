import FuzzDriver
import Glibc
@testable import JackCapture

/// The session file reader, from the file's bytes as `jcap session FILE` reads them: any bytes
/// must give a session or a `SessionFileError`, never a trap, a hang or unbounded memory.
@_cdecl("LLVMFuzzerTestOneInput")
public func sessionFileFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = sessionFilePath
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { fatalError("cannot write \(path)") }
    var written = 0
    while written < size {
        let count = write(descriptor, data! + written, size - written)
        guard count > 0 else { fatalError("cannot write \(path)") }
        written += count
    }
    close(descriptor)
    if let session = try? SessionDefinition.load(path: path) {
        // What the session command does with it before it touches JACK.
        _ = session.takeFiles.map(\.channelCount)
        _ = session.tracks.map { SessionFileReader.context(ofTrack: $0.name) }
    }
    return 0
}

/// A file of this process's in the scratch folder tools/fuzz gives (JCAP_FUZZ_SCRATCH), else /tmp.
let sessionFilePath: String = {
    let folder = (getenv("JCAP_FUZZ_SCRATCH").map { String(cString: $0) } ?? "/tmp") + "/session-file-\(getpid())"
    mkdir(folder, 0o700)
    return folder + "/session.toml"
}()

/// SwiftPM links an executable's `main` to `fuzz_session_file_main`: libFuzzer's driver runs from there.
@_cdecl("fuzz_session_file_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv, sessionFileFuzzTarget)
}
