import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// A session's file system going read-only mid-take, as ext4 does on an error (errors=remount-ro):
/// an ext4 image the test mounts through a loop device (the tests run as root) and whose error it
/// triggers (/sys/fs/ext4/loopN/trigger_fs_error). A tmpfs cannot be remounted read-only while
/// files are open for writing (EBUSY), so this is the way a disk goes read-only under a take.
///
/// Every file stays readable, the signal true in every frame its header declares; the take log's
/// end line cannot be written there, which jcap says in one line, exiting 22. Once the disk is
/// checked and writable again, `jcap takes` logs the take with the frames its files hold and
/// repairs them: at least the first half second, which jcap commits to the disk (syncfs) once
/// every file has it; the rest as far as the file system kept it.
final class ReadOnlyRemountTests: JackTestCase {
    private var loopDisk: LoopDisk?

    override func tearDownWithError() throws {
        loopDisk?.remove()
        loopDisk = nil
        try super.tearDownWithError()
    }

    func testADiskGoneReadOnlyLeavesEveryFileReadableAndSaysTheLogLineIsMissing() throws {
        let loop = try LoopDisk(image: path("disk.img"), megabytes: 64, mountPoint: path("disk"),
                                options: ["-o", "errors=remount-ro"])
        loopDisk = loop
        let disk = loop.mountPoint
        let device = loop.device

        let session = disk + "/ro.toml"
        try ("[session]\nname = \"ro\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n"
            + "[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n\n[[track]]\nname = \"B\"\nsource = \"sig:out_2\"\n")
            .write(toFile: session, atomically: true, encoding: .utf8)
        sync()  // The session file itself must outlive the failure.
        let folder = disk + "/ro"
        let jcap = try launchJcap(["session", session, "--for", "10s", "--meter", "none", "-v"])
        try Self.waitFor("take 1") { jcap.errorOutput.contains("recording take 1") }
        usleep(1_500_000)
        let errorTrigger = "/sys/fs/ext4/" + URL(fileURLWithPath: device).lastPathComponent + "/trigger_fs_error"
        try "a test of a disk going read-only".write(toFile: errorTrigger, atomically: false, encoding: .utf8)
        let status = try jcap.wait(timeout: 30)
        let errors = jcap.errorOutput
        XCTAssertEqual(status, ExitStatus.takeLogFailed.rawValue, errors)
        XCTAssertTrue(errors.contains("take 1 write failed"), errors)
        XCTAssertTrue(errors.contains(String(cString: strerror(EROFS))), errors)
        let logLines = errors.split(separator: "\n").filter { $0.contains("jcap: error: the take log:") }
        XCTAssertEqual(logLines.count, 1, "the missing log line is said once: \(errors)")
        XCTAssertTrue(logLines.first?.contains("next opened writable") == true, errors)
        // With -v the take's summary line gives its length in frames: "take 1 write failed: ... (N frames".
        let summary = try XCTUnwrap(errors.split(separator: "\n").first { $0.contains("take 1 write failed: ") }, errors)
        let reported = try XCTUnwrap(number(after: " (", in: String(summary)), errors)

        // On the read-only disk: every file opens, and every frame its header declares is the signal.
        let start = try XCTUnwrap(try TakeLog(folder: folder).entries().first?.startFrame, "the take's start line")
        let names = ["take-001-A.wav", "take-001-B.wav"]
        for (channel, name) in names.enumerated() {
            let signal = TestSignalReport.check(file: try SoundFile.open(readingFrom: folder + "/" + name), signalChannels: [channel])
            XCTAssertGreaterThan(signal.frames, 24_000, name)
            XCTAssertLessThanOrEqual(signal.frames, reported, name)
            XCTAssertEqual(signal.firstFrameTime, signalTime(start), name)
            XCTAssertTrue(signal.isIntact || (signal.wrongSamples == 0 && signal.segments.count == 1),
                          "\(name): the signal at its true position: \(signal)")
        }

        // The disk checked and mounted again, as after such an error in a studio.
        try loop.unmount()
        _ = try? LoopDisk.run("/sbin/e2fsck", ["-f", "-y", device])
        try loop.mount()
        let takes = try runJcap(["takes", session])
        XCTAssertEqual(takes.status, 0, takes.errors)
        let entry = try XCTUnwrap(try TakeLog(folder: folder).entries().first)
        XCTAssertEqual(entry.status, .interrupted, "logged now: \(takes.errors)")
        XCTAssertGreaterThanOrEqual(entry.frames, 24_000, "at least the first half second outlives the failure")
        XCTAssertLessThanOrEqual(entry.frames, reported)
        for (channel, name) in names.enumerated() {
            let signal = TestSignalReport.check(file: try SoundFile.open(readingFrom: folder + "/" + name), signalChannels: [channel])
            XCTAssertEqual(signal.frames, entry.frames, "\(name): repaired, its header declares what the log says")
            XCTAssertEqual(signal.firstFrameTime, signalTime(start), name)
            XCTAssertEqual(signal.wrongSamples, 0, "\(name): \(signal)")
            XCTAssertEqual(signal.segments.count, 1, "\(name): \(signal)")
        }
    }
}
