import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// Full disks on a small tmpfs each test mounts (the tests run as root, here and in CI): another
/// process filling the disk in the middle of a take, and a disk full (or nearly full) before one.
/// Every file is checked against what jcap and its take log say it holds, sample by sample.
final class DiskFullTests: JackTestCase {
    private var mountPoint: String?

    override func tearDownWithError() throws {
        if let mountPoint { try run("/bin/umount", ["-l", mountPoint]) }
        mountPoint = nil
        try super.tearDownWithError()
    }

    /// Mounts a tmpfs of `megabytes` MiB at `disk` in the test's directory; returns its path.
    func mountDisk(megabytes: Int) throws -> String {
        let disk = path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", disk])
        mountPoint = disk
        return disk
    }

    func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) failed with status \(process.terminationStatus)")
        }
    }

    /// Fills the disk as another process would: writes a file until only `leaving` bytes are free
    /// (0: until the file system refuses).
    func fill(_ disk: String, leaving: Int64 = 0) throws {
        let descriptor = open(disk + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw TestFailure("cannot create the filler: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x55, count: 65_536)
        while true {
            let wanted = leaving == 0 ? block.count : Int(min(Int64(block.count), try freeBytes(disk) - leaving))
            guard wanted > 0 else { return }
            guard block.withUnsafeBytes({ write(descriptor, $0.baseAddress, wanted) }) > 0 else { return }
        }
    }

    func freeBytes(_ disk: String) throws -> Int64 {
        var info = statvfs()
        guard statvfs(disk, &info) == 0 else { throw TestFailure("statvfs \(disk) failed") }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The whole frames in a WAV file's data, counted from its size, whatever its header says;
    /// and the frames its header declares.
    func frames(of path: String) throws -> (inData: Int64, declared: Int64) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(path)") }
        defer { close(descriptor) }
        let file = RawFile(descriptor: descriptor, path: path)
        let layout = try XCTUnwrap(try file.waveLayout(), path)
        let inData = (try file.size() - layout.dataStart) / Int64(layout.blockAlign)
        return (inData, Int64(layout.headerDataSize) / Int64(layout.blockAlign))
    }

    func testAnotherProcessFillingTheDiskMidSessionLeavesEveryFileDeclaringWhatItHolds() throws {
        let disk = try mountDisk(megabytes: 16)
        let tracks = (1...4).map { "[[track]]\nname = \"In \($0)\"\nsource = \"sig:out_\($0)\"\n" }.joined(separator: "\n")
        let sessionFile = disk + "/full.toml"
        try ("[session]\nname = \"full\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n" + tracks)
            .write(toFile: sessionFile, atomically: true, encoding: .utf8)
        let folder = disk + "/full"
        // Checked sample by sample against what the take log reports.
        let (status, errors) = try { () -> (Int32, String) in
            let jcap = try launchJcap(["session", sessionFile, "--for", "60s", "--meter", "none"])
            try Self.waitFor("the take to start") { jcap.errorOutput.contains("recording take 1") }
            usleep(1_000_000)
            try fill(disk)
            return (try jcap.wait(timeout: 30), jcap.errorOutput)
        }()
        XCTAssertEqual(status, 8, errors)
        XCTAssertTrue(errors.contains("take 1 disk full"), errors)
        let entry = try XCTUnwrap(try TakeLog(folder: folder).entries().first)
        XCTAssertEqual(entry.status, .diskFull)
        XCTAssertEqual(entry.files.count, 4)
        let account = try takeLogAccount(folder: folder, take: entry.take)
        XCTAssertEqual(account.files.map(\.signalChannels), [[0], [1], [2], [3]])
        assertAccountedFor(account)
        var held: [Int64] = []
        for logged in entry.files {
            let file = folder + "/" + logged.path
            let counted = try frames(of: file)
            XCTAssertEqual(counted.declared, counted.inData, "\(logged.path): the header declares every frame the file holds")
            XCTAssertEqual(logged.frames, counted.inData, "\(logged.path): the log says what the file holds")
            XCTAssertEqual(try SoundFile.open(readingFrom: file).frames, counted.inData, logged.path)
            held.append(counted.inData)
        }
        XCTAssertEqual(entry.frames, held.min(), "the take is as long as its shortest file: \(held)")
        XCTAssertGreaterThan(entry.frames, Int64(server.sampleRate / 2))
    }

    /// The studio's case at its largest: 64 tracks, one file each, when another process fills the
    /// disk. Every file ends readable with a header declaring what it holds, the log line is
    /// written (`disk full`) and jcap exits 8.
    func testSixtyFourTracksOnADiskThatFillsEndWithEveryFileTrue() throws {
        // The session's reserve (4 s of 64 float tracks, 47 MiB) must fit when the take starts.
        let disk = try mountDisk(megabytes: 80)
        let tracks = (1...64).map { "[[track]]\nname = \"In \($0)\"\nsource = \"sig:out_\($0)\"\n" }.joined(separator: "\n")
        let sessionFile = disk + "/wide.toml"
        try ("[session]\nname = \"wide\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n" + tracks)
            .write(toFile: sessionFile, atomically: true, encoding: .utf8)
        let folder = disk + "/wide"
        let jcap = try launchJcap(["session", sessionFile, "--for", "60s", "--meter", "none"])
        try Self.waitFor("the take to start") { jcap.errorOutput.contains("recording take 1") }
        usleep(1_000_000)
        try fill(disk)
        let status = try jcap.wait(timeout: 60)
        let errors = jcap.errorOutput
        XCTAssertEqual(status, 8, errors)
        XCTAssertTrue(errors.contains("take 1 disk full"), errors)
        let entries = try TakeLog(folder: folder).entries()
        XCTAssertEqual(entries.count, 1, "the log line is written: \(entries)")
        let entry = try XCTUnwrap(entries.first)
        XCTAssertEqual(entry.status, .diskFull)
        XCTAssertEqual(entry.files.count, 64)
        let lost = entry.lost.map { LostSpan(position: $0.position, frames: $0.frames) }
        var held: [Int64] = []
        for (index, logged) in entry.files.enumerated() {
            let file = folder + "/" + logged.path
            let counted = try frames(of: file)
            XCTAssertEqual(counted.declared, counted.inData, "\(logged.path): the header declares every frame the file holds")
            XCTAssertEqual(logged.frames, counted.inData, "\(logged.path): the log says what the file holds")
            let signal = TestSignalReport.check(file: try SoundFile.open(readingFrom: file), signalChannels: [index])
            XCTAssertEqual(signal.frames, counted.inData, logged.path)
            // An xrun on this busy machine loses frames: silence exactly where the log says.
            XCTAssertEqual(signal.silentSpans, lost.filter { $0.position < counted.inData }.map {
                LostSpan(position: $0.position, frames: min($0.frames, counted.inData - $0.position))
            }, "\(logged.path): \(signal)")
            XCTAssertEqual(signal.wrongSamples, 0, "\(logged.path): \(signal)")
            XCTAssertEqual(signal.segments.count, 1, "\(logged.path): never shifted: \(signal)")
            XCTAssertEqual(signal.firstFrameTime, signalTime(try XCTUnwrap(entry.startFrame)), logged.path)
            held.append(counted.inData)
        }
        XCTAssertEqual(entry.frames, held.min(), "the take is as long as its shortest file: \(held)")
        XCTAssertGreaterThan(entry.frames, Int64(server.sampleRate / 2))
    }

    func testAPlainTakeOnADiskThatFillsReportsWhatTheFileHolds() throws {
        let disk = try mountDisk(megabytes: 8)
        let output = disk + "/full.wav"
        // Checked sample by sample against jcap's --meter json summary.
        let (status, errors, account) = try { () -> (Int32, String, TakeAccount) in
            let jcap = try launchJcap(signalPorts(2) + ["--for", "60s", "--meter", "json", "--bit-depth", "float", "-o", output])
            try Self.waitFor("the take to be written") {
                ((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.intValue ?? 0) > 100_000
            }
            try fill(disk)
            return (try jcap.wait(timeout: 30), jcap.errorOutput, try summaryAccount(jcap.output))
        }()
        XCTAssertEqual(status, 4, errors)
        XCTAssertTrue(errors.contains(String(cString: strerror(ENOSPC))), errors)
        let reported = try XCTUnwrap(account.files.first?.frames, "the summary gives the file's frames: \(errors)")
        let counted = try frames(of: output)
        XCTAssertEqual(counted.declared, counted.inData, "the header declares every frame the file holds")
        XCTAssertEqual(reported, counted.inData, "jcap reports what the file holds")
        XCTAssertEqual(try SoundFile.open(readingFrom: output).frames, counted.inData)
        XCTAssertEqual(account.files.map(\.path), [output])
        assertAccountedFor(account)
    }

    func testAFullDiskAtTheStartIsSaidToBeFullNotBlamedOnTheFormat() throws {
        let disk = try mountDisk(megabytes: 2)
        try fill(disk)
        let run = try runJcap(signalPorts(2) + ["--for", "1s", "--meter", "none", "-o", disk + "/take.wav"])
        XCTAssertEqual(run.status, 4, run.errors)
        XCTAssertTrue(run.errors.contains(String(cString: strerror(ENOSPC))), run.errors)
        XCTAssertTrue(run.errors.contains("the disk holding '\(disk)' is full (0 bytes free)"), run.errors)
        XCTAssertFalse(run.errors.contains("libsndfile cannot write"), run.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: disk + "/take.wav"), "no file left behind")
    }

    func testANearlyFullDiskBeforeASessionTakeSaysSoAndExitsEight() throws {
        let disk = try mountDisk(megabytes: 4)
        let sessionFile = disk + "/nearly.toml"
        try "[session]\nname = \"nearly\"\nformat = \"wav\"\n\n[[track]]\nname = \"In 1\"\nsource = \"sig:out_1\"\n"
            .write(toFile: sessionFile, atomically: true, encoding: .utf8)
        // Less than the ring's worth (4 s of one 24-bit track, 576,000 bytes) and a MiB, but not nothing.
        try fill(disk, leaving: 1 << 20)
        let run = try runJcap(["session", sessionFile, "--for", "1s", "--meter", "none"])
        XCTAssertEqual(run.status, 8, run.errors)
        // The free space as jcap measured it, after its lock file took a page.
        XCTAssertTrue(run.errors.contains("the disk holding '\(disk)/nearly' is nearly full: "), run.errors)
        XCTAssertTrue(run.errors.contains(" KiB free, and a take needs 1.5 MiB"), run.errors)
        XCTAssertFalse(run.errors.contains("stopped before the start"), run.errors)
        let takes = try FileManager.default.contentsOfDirectory(atPath: disk + "/nearly").filter { $0.hasPrefix("take-") }
        XCTAssertEqual(takes, [], "no take file made")
    }
}
