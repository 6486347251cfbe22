import Foundation
import XCTest

/// The tests' own hang report: a program that outlives its timeout is killed, and the failure
/// shows where each of its threads waited.
final class SubprocessTimeoutTests: XCTestCase {
    func testAProgramThatDoesNotExitIsKilledWithItsThreadsStacks() throws {
        let sleeper = try Subprocess(URL(fileURLWithPath: "/bin/sleep"), ["60"], server: nil, directory: NSTemporaryDirectory())
        XCTAssertThrowsError(try sleeper.wait(timeout: 1)) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains("did not exit within 1.0 s"), text)
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
                XCTAssertTrue(text.contains("Thread 1") && text.contains("sleep"), text)
            }
        }
        XCTAssertFalse(sleeper.process.isRunning, "killed")
    }
}
