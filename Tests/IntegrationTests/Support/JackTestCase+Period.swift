import Foundation
import XCTest

extension JackTestCase {
    /// Changes this class's server's period (jack_bufsize), as a user would mid-take.
    func setPeriod(_ frames: Int) throws {
        let tool = Process()
        tool.executableURL = try Executables.system("jack_bufsize")
        tool.arguments = ["\(frames)"]
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = server.name
        tool.environment = environment
        tool.standardOutput = FileHandle.nullDevice
        tool.standardError = FileHandle.nullDevice
        try tool.run()
        tool.waitUntilExit()
        XCTAssertEqual(tool.terminationStatus, 0, "jack_bufsize \(frames)")
    }
}
