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
/// Every file stays readable, every frame its header declares accounted for by what jcap reported
/// (`--meter json`: the signal in place, or inside a span it reported); the take log's
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
        let jcap = try launchJcap(["session", session, "--for", "10s", "--meter", "json", "-v"])
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

        // On the read-only disk: every file opens, and every frame its header declares is the signal
        // in place or inside a span jcap reported. The file may end before the take's reported length.
        let start = try XCTUnwrap(try TakeLog(folder: folder).entries().first?.startFrame, "the take's start line")
        var account = try summaryAccount(jcap.output)
        XCTAssertEqual(account.startFrame, start, "the summary's take is the logged one")
        XCTAssertEqual(account.files.map { URL(fileURLWithPath: $0.path).lastPathComponent }, ["take-001-A.wav", "take-001-B.wav"])
        for file in account.files {
            let frames = try SoundFile.open(readingFrom: file.path).frames
            XCTAssertGreaterThan(frames, 24_000, file.path)
            XCTAssertLessThanOrEqual(frames, reported, file.path)
        }
        account.files = account.files.map { var each = $0; each.frames = nil; return each }
        assertAccountedFor(account, "on the read-only disk")

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
        // The repair measures lengths only: the spans jcap reported before the failure still hold.
        account.files = account.files.map { var each = $0; each.frames = entry.frames; return each }
        assertAccountedFor(account, "repaired, each header declaring what the log says")
    }
}
