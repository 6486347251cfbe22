import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// A session filling an ext4 disk (an image the test mounts through a loop device; the tests run
/// as root). Files written around the page cache allocate space ahead of their writes, which the
/// file system counts used: the disk watch once took it for audio and stopped a 64-track take
/// "disk full" at 280 MiB of a 532 MiB disk. The take fills the disk up to the session's reserve,
/// and every file declares what it holds.
final class AllocatedAheadDiskTests: JackTestCase {
    private var loopDisk: LoopDisk?

    override func tearDownWithError() throws {
        loopDisk?.remove()
        loopDisk = nil
        try super.tearDownWithError()
    }

    func testASessionFillsAnExt4DiskUpToItsReserveNotToItsAllocations() throws {
        let loop = try LoopDisk(image: path("disk.img"), megabytes: 200, mountPoint: path("disk"))
        loopDisk = loop
        let disk = loop.mountPoint

        let tracks = (1...64).map { "[[track]]\nname = \"In \($0)\"\nsource = \"sig:out_\($0)\"\n" }.joined(separator: "\n")
        let sessionFile = disk + "/fill.toml"
        try ("[session]\nname = \"fill\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n" + tracks)
            .write(toFile: sessionFile, atomically: true, encoding: .utf8)
        let folder = disk + "/fill"
        let freeAtStart = try loop.freeBytes()
        // The session's reserve: its buffer (4 s) of all 64 float tracks, and 1 MiB.
        let reserve = Int64(4 * server.sampleRate * 64 * 4) + (1 << 20)
        let jcap = try launchJcap(["session", sessionFile, "--for", "60s", "--meter", "none"])
        let status = try jcap.wait(timeout: 90)
        let errors = jcap.errorOutput
        XCTAssertEqual(status, 8, errors)
        XCTAssertTrue(errors.contains("take 1 disk full"), errors)

        // The take stopped with no more than the reserve free (and a second of audio, the watch's
        // and the writer's lag); before, half the disk was still free.
        let secondOfAudio = Int64(server.sampleRate * 64 * 4)
        let freeAfter = try loop.freeBytes()
        XCTAssertLessThan(freeAfter, reserve + secondOfAudio,
                          "\(freeAfter >> 20) MiB free after the take, of \(freeAtStart >> 20) MiB at its start")
        let entry = try XCTUnwrap(try TakeLog(folder: folder).entries().first)
        XCTAssertEqual(entry.status, .diskFull)
        XCTAssertEqual(entry.files.count, 64)
        let audioBytes = entry.frames * 64 * 4
        XCTAssertGreaterThan(audioBytes, freeAtStart - reserve - 2 * secondOfAudio,
                             "\(audioBytes >> 20) MiB of audio on a disk with \(freeAtStart >> 20) MiB free")
        // Every file declares what it holds (its space allocated ahead given back at the close),
        // and the take log says so.
        let account = try takeLogAccount(folder: folder, take: entry.take)
        assertAccountedFor(account)
        for logged in entry.files {
            let file = try SoundFile.open(readingFrom: folder + "/" + logged.path)
            XCTAssertEqual(file.frames, logged.frames, logged.path)
        }
    }
}
