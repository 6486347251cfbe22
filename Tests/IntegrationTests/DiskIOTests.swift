import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// `--io` and the session key `io` against a real server: takes written around the page cache
/// and through it hold the test signal sample for sample, a file system without O_DIRECT (a ramfs
/// the test mounts; the tests run as root) falls back with one line under auto and is refused
/// under direct without a file left behind.
final class DiskIOTests: JackTestCase {
    private var mountPoint: String?

    override func tearDownWithError() throws {
        if let mountPoint { _ = try? ChildProcessRunner.run("/bin/umount", ["-l", mountPoint]) }
        mountPoint = nil
        try super.tearDownWithError()
    }

    func mountRamfs() throws -> String {
        let disk = path("ram")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        XCTAssertEqual(try ChildProcessRunner.run("/bin/mount", ["-t", "ramfs", "ramfs", disk]), 0)
        mountPoint = disk
        return disk
    }

    func testEveryModeRecordsTheSignalInPlace() throws {
        for mode in ["auto", "direct", "buffered"] {
            let file = path("take-\(mode).wav")
            let result = try runJcapReporting(["--port", "sig:out_1", "--port", "sig:out_2", "--for", "2s", "--io", mode,
                                               "--bit-depth", "float", "-o", file])
            let account = try XCTUnwrap(result.account, result.errors)
            XCTAssertEqual(result.status, exitStatus(reporting: account), result.errors)
            assertAccountedFor(account, mode)
            XCTAssertEqual(try SoundFile.open(readingFrom: file).frames, Int64(2 * server.sampleRate), mode)
            XCTAssertFalse(result.errors.contains("page cache"), "\(mode): \(result.errors)")
        }
    }

    func testAFileSystemWithoutODirectFallsBackUnderAutoAndIsRefusedUnderDirect() throws {
        let disk = try mountRamfs()
        let result = try runJcapReporting(["--port", "sig:out_1", "--for", "1s", "--bit-depth", "float", "-o", disk + "/auto.wav"])
        let account = try XCTUnwrap(result.account, result.errors)
        assertAccountedFor(account)
        XCTAssertTrue(result.errors.contains("jcap: 1 file in \(disk) written through the page cache: the file system refuses O_DIRECT"),
                      result.errors)

        let refused = try runJcap(["--port", "sig:out_1", "--for", "1s", "--io", "direct", "-o", disk + "/direct.wav"])
        XCTAssertEqual(refused.status, 29, refused.errors)
        XCTAssertTrue(refused.errors.contains("cannot write '\(disk)/direct.wav' around the page cache: the file system refuses O_DIRECT"),
                      refused.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: disk + "/direct.wav"))
    }

    func testTheSessionKeyIsFollowedAndTheFlagOverridesIt() throws {
        // A session's reserve check needs free space a ramfs does not report: here the format is
        // what direct I/O refuses (FLAC is compressed in blocks libsndfile reads back).
        let sessionFile = path("io.toml")
        try "[session]\nname = \"io\"\nformat = \"flac\"\nio = \"direct\"\n\n[[track]]\nname = \"One\"\nsource = \"sig:out_1\"\n"
            .write(toFile: sessionFile, atomically: true, encoding: .utf8)
        let refused = try runJcap(["session", sessionFile, "--for", "1s", "--meter", "none"])
        XCTAssertEqual(refused.status, 29, refused.errors)
        XCTAssertTrue(refused.errors.contains("around the page cache: FLAC is encoded in blocks libsndfile reads back"), refused.errors)

        let buffered = try runJcap(["session", sessionFile, "--for", "1s", "--meter", "none", "--io", "buffered"])
        XCTAssertFalse(buffered.errors.contains("page cache"), buffered.errors)
        let auto = try runJcap(["session", sessionFile, "--for", "1s", "--meter", "none", "--io", "auto"])
        XCTAssertTrue(auto.errors.contains("written through the page cache: FLAC is encoded in blocks libsndfile reads back"), auto.errors)
        let accounts = try takeLogAccounts(folder: path("io"))
        XCTAssertEqual(accounts.count, 2)
        for account in accounts { assertAccountedFor(account) }
        XCTAssertEqual(buffered.status, exitStatus(reportingAll: [accounts[0]]), buffered.errors)
        XCTAssertEqual(auto.status, exitStatus(reportingAll: [accounts[1]]), auto.errors)

        try "[session]\nname = \"bad\"\nio = \"sideways\"\n\n[[track]]\nname = \"One\"\nsource = \"sig:out_1\"\n"
            .write(toFile: sessionFile, atomically: true, encoding: .utf8)
        let bad = try runJcap(["session", sessionFile, "--for", "1s"])
        XCTAssertEqual(bad.status, 20, bad.errors)
        XCTAssertTrue(bad.errors.contains("io: expected \"auto\", \"direct\" or \"buffered\", not \"sideways\""), bad.errors)
    }
}

/// Runs a program to its end; its exit status.
enum ChildProcessRunner {
    static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
