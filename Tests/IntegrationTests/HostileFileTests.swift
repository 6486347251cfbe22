import Foundation
import XCTest
@testable import JackCapture

/// What jcap does with files that are not what they claim, or point elsewhere: FIFOs in place of
/// a session file or a sound file, symlinks inside a session folder, a log jcap cannot write,
/// names and notes carrying terminal escapes. Each is one clear line and a distinct status,
/// never a hang, a crash or a touched file outside the session.
final class HostileFileTests: JackTestCase {
    func writeSession(_ name: String, tracks: String = "[[track]]\nname = \"Vox\"\nsource = \"sig:out_1\"\n") throws -> String {
        let file = path("\(name).toml")
        try "[session]\nname = \"\(name)\"\nformat = \"wav\"\n\n\(tracks)".write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func testAFifoIsRefusedAtOnceAsASessionFileAndAsASoundFile() throws {
        let fifo = path("fifo.toml")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for arguments in [["session", fifo, "--for", "1s", "--meter", "none"], ["takes", fifo]] {
            let run = try runJcap(arguments, timeout: 10)
            XCTAssertEqual(run.status, 20, "\(arguments): \(run.errors)")
            XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("fifo.toml") && run.errors.contains("not a regular file"), run.errors)
        }
        let sound = path("fifo.wav")
        XCTAssertEqual(mkfifo(sound, 0o644), 0)
        let run = try runJcap(["play", sound, "--meter", "none"], timeout: 10)
        XCTAssertEqual(run.status, 24, run.errors)
        XCTAssertTrue(run.errors.contains("fifo.wav") && run.errors.contains("not a regular file"), run.errors)
    }
}
