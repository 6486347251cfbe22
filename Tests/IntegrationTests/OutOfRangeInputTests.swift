import Foundation
import XCTest
@testable import JackCapture
import jcap

/// Numbers, times and names from files and flags that are out of range: each refused in one line
/// with its own exit status before anything is created, never a crash or a hang.
final class OutOfRangeInputTests: JackTestCase {
    /// A one-track session `name` recording `sig:out_1`.
    func writeSession(_ name: String) throws -> String {
        let text = "[session]\nname = \"\(name)\"\nformat = \"wav\"\n\n[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n"
        let file = path("\(name).toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The names in `folder` but the session lock's (opening a session makes it, and it stays).
    func contents(of folder: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder)).subtracting([".jcap.lock"])
    }

    /// A take number at Int.max in a file name or in the log crashed the session (status 132);
    /// one past the highest a session gives is refused as well, with the folder left as it was.
    func testTakeNumbersAboveTheHighestInTheFolderOrTheLogAreRefused() throws {
        let session = try writeSession("S")
        let folder = path("S")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["take-9223372036854775807-A.wav", "take-\(SessionTake.highestNumber)-A.wav"] {
            let file = folder + "/" + name
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: nil))
            let before = try contents(of: folder)
            let run = try runJcap(["session", session, "--for", "1s", "--meter", "none"])
            XCTAssertEqual(run.status, ExitStatus.takeLogFailed.rawValue, "\(name): \(run.errors)")
            let errors = run.errors.split(separator: "\n").filter { $0.contains("error") }
            XCTAssertEqual(errors.count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("no take number left") && run.errors.contains("\(SessionTake.highestNumber)"), run.errors)
            XCTAssertEqual(try contents(of: folder), before, "\(name): nothing created")
            try FileManager.default.removeItem(atPath: file)
        }

        let log = folder + "/takes.jsonl"
        try Data("{\"take\":9223372036854775807,\"status\":\"complete\",\"sample_rate\":48000}\n".utf8)
            .write(to: URL(fileURLWithPath: log))
        let before = try contents(of: folder)
        let run = try runJcap(["session", session, "--for", "1s", "--meter", "none"])
        XCTAssertEqual(run.status, ExitStatus.takeLogFailed.rawValue, run.errors)
        XCTAssertTrue(run.errors.contains("no take number left"), run.errors)
        XCTAssertEqual(try contents(of: folder), before, "the log record: nothing created")
    }

    /// `--takes 9223372036854775807` crashed; `--takes 4611686018427387904` grew memory without
    /// bound and ignored signals. Both are refused at once as a bad option, nothing created.
    func testHugeTakeCountsAreRefusedAtOnce() throws {
        let session = try writeSession("T")
        for count in ["9223372036854775807", "4611686018427387904", "\(SessionTake.mostTakesBackToBack + 1)"] {
            let run = try runJcap(["session", session, "--for", "1s", "--takes", count, "--meter", "none"], timeout: 20)
            XCTAssertEqual(run.status, ExitStatus.usage.rawValue, "\(count): \(run.errors)")
            XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("bad --takes '\(count)': use at most \(SessionTake.mostTakesBackToBack)"), run.errors)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("T")), "nothing created")
    }
}
