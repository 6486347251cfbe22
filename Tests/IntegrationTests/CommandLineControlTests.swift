import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// jcap driven as a person or a script drives it: keys on a terminal (a real pseudo-terminal), and
/// a disk that refuses to take more.
final class CommandLineControlTests: JackTestCase {
    func testSpacePausesAndResumesAndQStopsOnATerminal() throws {
        let (run, account) = try { () -> ((Int32, String), TakeAccount) in
            var master: Int32 = -1, slave: Int32 = -1
            XCTAssertEqual(openpty(&master, &slave, nil, nil, nil), 0, "a pseudo-terminal")
            let terminal = FileHandle(fileDescriptor: master, closeOnDealloc: true)
            let jcap = try Subprocess(try Executables.built("jcap"), signalPorts(2) + ["-o", "keys.wav", "--meter", "json", "-v"], server: server.name,
                                      directory: directory, standardInput: FileHandle(fileDescriptor: slave, closeOnDealloc: true))
            try Self.waitFor("recording", saying: { jcap.errorOutput }) { jcap.errorOutput.contains("jcap: recording") }
            XCTAssertTrue(jcap.errorOutput.contains("space pauses and resumes, q or Enter stops"), jcap.errorOutput)
            usleep(400_000)
            terminal.write(Data(" ".utf8))
            try Self.waitFor("the pause", saying: { jcap.errorOutput }) { jcap.errorOutput.contains("paused at JACK frame") }
            usleep(300_000)
            terminal.write(Data(" ".utf8))
            try Self.waitFor("the resume", saying: { jcap.errorOutput }) { jcap.errorOutput.contains("resumed at JACK frame") }
            usleep(300_000)
            terminal.write(Data("q".utf8))
            let status = try jcap.wait(timeout: 20)
            return ((status, jcap.errorOutput), try summaryAccount(jcap.output))
        }()
        XCTAssertEqual(run.0, exitStatus(reporting: account), run.1)
        XCTAssertTrue(run.1.contains("jcap: stopping before JACK frame"), run.1)
        // Recorded, paused, recorded from the resume frame on: every sample checked against it.
        let pausedAt = try XCTUnwrap(number(after: "paused at JACK frame ", in: run.1))
        let resumedAt = try XCTUnwrap(number(after: "resumed at JACK frame ", in: run.1))
        XCTAssertEqual(account.pauses.map(\.skippedFrames), [Int64(FrameTime.distance(from: UInt32(pausedAt), to: UInt32(resumedAt)))])
        XCTAssertEqual(account.pauses.first.map { account.frameTime(atPosition: $0.position) }, UInt32(resumedAt))
        assertAccountedFor(account)
    }

    /// A file-size limit (ulimit -f) stands in for a full disk: the write fails mid-take, jcap
    /// says so in one line and exits 4, and everything written before is readable.
    func testAWriteFailureMidTakeExitsFourWithAReadableFile() throws {
        try XCTSkipIf(Executables.builtWithThreadSanitizer,
                      "ThreadSanitizer's runtime cannot start under ulimit -f (tools/test runs this)")
        let jcap = try Subprocess(URL(fileURLWithPath: "/bin/bash"),
                                  ["-c", "ulimit -f 256; exec \"$0\" \"$@\"", try Executables.built("jcap").path]
                                    + signalPorts(2) + ["--for", "10s", "-o", "full.wav"],
                                  server: server.name, directory: directory)
        let status = try jcap.wait(timeout: 30)
        XCTAssertEqual(status, ExitStatus.writeFailed.rawValue, jcap.errorOutput)
        let errorLines = jcap.errorOutput.split(separator: "\n").filter { $0.contains("error") }
        XCTAssertEqual(errorLines.count, 1, jcap.errorOutput)
        XCTAssertTrue(errorLines.first?.contains("File too large") ?? false, jcap.errorOutput)
        let file = try SoundFile.open(readingFrom: path("full.wav"))
        XCTAssertGreaterThan(file.frames, 20_000, "what was written before the failure is there")
        XCTAssertLessThan(file.frames, 48_000)
    }

    /// The same failure through the library: the delegate hears the encode error, then that the
    /// take did not finish successfully.
    func testTheRecorderDelegateHearsAWriteError() throws {
        let (recorder, delegate) = try makeRecorder("limited.wav")
        try recorder.prepareToRecord()
        // Only while recording: the test process's own file writes are limited too.
        let resource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
        var original = rlimit()
        getrlimit(resource, &original)
        let previousHandler = Glibc.signal(SIGXFSZ, SIG_IGN)
        var limited = rlimit(rlim_cur: 150_000, rlim_max: original.rlim_max)
        setrlimit(resource, &limited)
        defer {
            setrlimit(resource, &original)
            Glibc.signal(SIGXFSZ, previousHandler)
        }
        try recorder.record(forDuration: 10)
        XCTAssertFalse(try delegate.waitForFinish(timeout: 20))
        XCTAssertEqual(delegate.errors.count, 1)
        guard case .writeFailed(_, let reason)? = delegate.errors.first else { return XCTFail("\(delegate.errors)") }
        XCTAssertTrue(reason.contains("File too large"), reason)
        guard case .writeFailed? = recorder.finalReport?.outcome else { return XCTFail("\(String(describing: recorder.finalReport))") }
    }
}
